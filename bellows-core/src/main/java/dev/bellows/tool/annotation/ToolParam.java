package dev.bellows.tool.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Describes a parameter of a {@link Tool} method for the model (LangChain4j's {@code @P},
 * Spring AI's {@code @ToolParam}).
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.PARAMETER)
public @interface ToolParam {

    /** What the argument is, for the model. */
    String value() default "";

    /** Same as {@link #value()}, for classes written for Spring AI. */
    String description() default "";

    /** The argument's name (default: the parameter's name, which needs javac's {@code -parameters}). */
    String name() default "";

    /**
     * Whether the model must give it (default true). A parameter of an {@code Optional} type is
     * never required; a non-required parameter of another type gets {@code null} when left out.
     */
    boolean required() default true;
}
