package dev.bellows.tool;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Text for the model: what a tool argument means, or what a record of arguments is. It becomes
 * the {@code description} of the property (or object) in the schema {@link JsonSchemas}
 * generates.
 *
 * <pre>{@code
 * record Weather(@Description("City name, such as 'Lisbon'") String city,
 *                @Description("Defaults to celsius") Optional<Unit> unit) {}
 * }</pre>
 *
 * <p>On a component whose type is itself an annotated record, the component's description
 * wins: it says what the value is for, which is more specific than what the type is.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.RECORD_COMPONENT, ElementType.TYPE})
public @interface Description {

    /** The description, written for the model. */
    String value();
}
