package dev.bellows.tool.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Makes a public method of an ordinary object a tool the model can call, registered with
 * {@link dev.bellows.tool.ToolRegistry#registerMethods(Object)}. The same shape as
 * LangChain4j's {@code @Tool} and Spring AI's {@code @Tool}: moving such a class over is a
 * change of imports.
 *
 * <pre>{@code
 * class Weather {
 *     @Tool("The weather forecast for a city")
 *     Forecast forecast(@ToolParam("the city's name") String city, Optional<Integer> days) { ... }
 * }
 * registry.registerMethods(new Weather());
 * }</pre>
 *
 * <p>Parameters may be anything a typed tool's argument record may hold (strings, numbers,
 * booleans, enums, records, lists, sets, maps with string keys; {@code Optional} for an argument
 * the model may leave out), plus a {@link dev.bellows.tool.ToolContext} parameter, which is not
 * an argument. The method returns what the model reads (a string as it is, anything else as
 * JSON), a {@link dev.bellows.tool.ToolResult}, or nothing.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Tool {

    /** What the tool does and when to use it, for the model (Spring AI's {@code description}). */
    String value() default "";

    /** Same as {@link #value()}, for classes written for Spring AI. */
    String description() default "";

    /** The tool's name (default: the method's name). */
    String name() default "";
}
