package dev.bellows.tool;

import dev.bellows.json.internal.Jackson;
import tools.jackson.core.JacksonException;
import tools.jackson.core.exc.InputCoercionException;
import tools.jackson.databind.DatabindException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.exc.MismatchedInputException;
import tools.jackson.databind.exc.ValueInstantiationException;
import java.util.List;
import java.util.Objects;

/**
 * A tool whose arguments are a Java record: the schema is generated from the record
 * ({@link JsonSchemas}), the model's arguments are checked against it and coerced where that
 * is lossless ({@link ArgumentSchema}, compiled once per tool), bound to the record, and handed to a lambda.
 *
 * <pre>{@code
 * enum Unit { celsius, fahrenheit }
 *
 * @Description("The weather where the user asks about")
 * record WeatherQuery(@Description("City name, such as 'Lisbon'") String city,
 *                     @Description("Defaults to celsius") Optional<Unit> unit) {}
 *
 * Tool weather = TypedTool.of("get_weather", "Current weather of a city. Use it before "
 *         + "answering any question about the weather.", WeatherQuery.class,
 *         (context, query) -> ToolResult.of(forecasts.now(query.city(), query.unit().orElse(Unit.celsius))));
 * }</pre>
 *
 * <p>The handler never sees arguments that break the schema: a required component is never
 * {@code null}, and an absent optional one is {@code Optional.empty()}. A mismatch is an
 * {@link InvalidArgumentsException} whose message the model reads to correct its call.
 *
 * @param <I> the arguments' record type
 * @param <O> the output's type
 */
public final class TypedTool<I extends Record, O> implements Tool {

    private static final ObjectMapper MAPPER = Jackson.JSON;

    private final String name;
    private final String description;
    private final Class<I> argumentsType;
    /** Binds arguments to {@link #argumentsType}: made once, so a call looks up neither the type nor its deserializer. */
    private final ObjectReader reader;
    /** Binds plain records without Jackson's per-call set-up; null when Jackson binds every call. */
    private final DirectBinding<I> direct;
    private final Handler<I, O> handler;
    private final JsonNode schema;      // frozen
    private final ArgumentSchema arguments;
    private final boolean loopBreaking;
    private final boolean parallelSafe;

    private TypedTool(Builder<I, O> builder) {
        this.name = ToolNames.requireValid(builder.name);
        this.argumentsType = Objects.requireNonNull(builder.argumentsType, "argumentsType");
        this.reader = Jackson.ARGUMENTS.forType(argumentsType);
        this.direct = DirectBinding.of(argumentsType);
        this.schema = JsonSchemas.forRecord(argumentsType);
        this.arguments = ArgumentSchema.compile(schema); // once: every call checks against it
        this.description = description(builder.description, argumentsType, name);
        this.handler = Objects.requireNonNull(builder.handler,
                () -> "tool '" + name + "' has no handler; give one with .handler((context, arguments) -> ...)");
        this.loopBreaking = builder.loopBreaking;
        this.parallelSafe = builder.parallelSafe;
    }

    /**
     * A typed tool with the default flags (not loop-breaking, not parallel-safe).
     *
     * @param name          1 to 64 letters, digits, {@code _} or {@code -}
     * @param description   what it does and when to use it, for the model
     * @param argumentsType the record the arguments bind to; its schema is generated now, so
     *                      an unsupported component fails here, at startup
     * @throws IllegalArgumentException for a bad name, a blank description or an unsupported
     *                                  arguments type
     */
    public static <I extends Record, O> TypedTool<I, O> of(String name, String description, Class<I> argumentsType,
            Handler<I, O> handler) {
        return builder(name, argumentsType).description(description).handler(handler).build();
    }

    /** A builder, for the flags; the description defaults to the record's {@link Description}. */
    public static <I extends Record> Builder<I, Object> builder(String name, Class<I> argumentsType) {
        return new Builder<>(name, argumentsType);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String description() {
        return description;
    }

    /** The schema generated from the arguments' record, frozen ({@link JsonNode#deepCopy()} to edit a copy). */
    @Override
    public JsonNode inputSchema() {
        return schema;
    }

    /** The schema as compiled for checking arguments; the registry reuses it rather than compiling again. */
    ArgumentSchema argumentSchema() {
        return arguments;
    }

    /** The record the arguments bind to. */
    public Class<I> argumentsType() {
        return argumentsType;
    }

    /** Always true: {@link #call} checks the arguments itself, before binding them. */
    @Override
    public boolean validatesArguments() {
        return true;
    }

    @Override
    public boolean loopBreaking() {
        return loopBreaking;
    }

    @Override
    public boolean parallelSafe() {
        return parallelSafe;
    }

    /**
     * Checks, coerces and binds the arguments ({@code null} is taken as {@code {}}), then runs
     * the handler. A handler that returns {@code null} is taken as returning no output.
     *
     * @throws InvalidArgumentsException when the arguments do not match the schema
     * @throws Exception                 whatever the handler throws
     */
    @Override
    public ToolResult<O> call(ToolContext context, JsonNode arguments) throws Exception {
        I bound = bind(arguments == null ? MAPPER.createObjectNode() : arguments);
        ToolResult<O> result = handler.call(context, bound);
        return result == null ? ToolResult.of(null) : result;
    }

    /** The arguments as the record the handler gets. */
    I bind(JsonNode arguments) throws InvalidArgumentsException {
        // Only read here (binding builds the record's values anew): no copy of arguments the schema takes as they are.
        JsonNode checked = this.arguments.checkForReading(name, arguments);
        I bound = direct == null ? null : direct.bind(checked);
        if (bound != null) {
            return bound;
        }
        try {
            return reader.readValue(checked);
        } catch (JacksonException e) {
            // The schema let it through, so this is what the schema cannot say: an int out of
            // range, or a record's own constructor refusing the value.
            throw new InvalidArgumentsException(name, List.of(bindingProblem(e)), this.arguments.summary());
        }
    }

    private static ArgumentProblem bindingProblem(JacksonException e) {
        if (e instanceof InputCoercionException range) {
            // Jackson 3 throws it as it is, with the path: "Numeric value (...) out of range of int"
            return new ArgumentProblem(path(range.getPath()), range.getOriginalMessage().replace("`", ""));
        }
        if (!(e instanceof DatabindException mapping)) {
            return new ArgumentProblem(ArgumentProblem.ROOT, e.getOriginalMessage());
        }
        String path = path(mapping.getPath());
        if (mapping instanceof ValueInstantiationException && mapping.getCause() != null
                && mapping.getCause().getMessage() != null) {
            return new ArgumentProblem(path, mapping.getCause().getMessage()); // the record's own words
        }
        if (mapping.getCause() instanceof InputCoercionException range) {
            return new ArgumentProblem(path, range.getOriginalMessage().replace("`", "")); // "Numeric value (...) out of range of int"
        }
        // Jackson's other messages name Java classes, which mean nothing to the model.
        String type = mapping instanceof MismatchedInputException mismatch && mismatch.getTargetType() != null
                ? " (" + mismatch.getTargetType().getSimpleName() + ")" : "";
        return new ArgumentProblem(path, "does not fit the expected type" + type);
    }

    private static String path(List<JacksonException.Reference> references) {
        StringBuilder path = new StringBuilder();
        for (JacksonException.Reference reference : references) {
            if (reference.getPropertyName() != null) {
                path.append(path.isEmpty() ? "" : ".").append(reference.getPropertyName());
            } else if (reference.getIndex() >= 0) {
                path.append('[').append(reference.getIndex()).append(']');
            }
        }
        return path.isEmpty() ? ArgumentProblem.ROOT : path.toString();
    }

    private static String description(String given, Class<?> argumentsType, String name) {
        String description = given;
        if (description == null) {
            Description annotation = argumentsType.getAnnotation(Description.class);
            description = annotation == null ? null : annotation.value();
        }
        if (description == null || description.isBlank()) {
            throw new IllegalArgumentException("tool '" + name + "' has no description; say what it does and when"
                    + " to use it, with .description(...) or @Description on " + argumentsType.getSimpleName());
        }
        return description;
    }

    /** Shows the name, which is what tells tools apart in logs and test failures. */
    @Override
    public String toString() {
        return "TypedTool[" + name + "]";
    }

    /**
     * What a typed tool does with its arguments.
     *
     * @param <I> the arguments' record type
     * @param <O> the output's type
     */
    @FunctionalInterface
    public interface Handler<I, O> {

        /**
         * @throws ToolException for a failure the model should read and can act on
         * @throws Exception     for any other failure
         */
        ToolResult<O> call(ToolContext context, I arguments) throws Exception;
    }

    /**
     * Builds a {@link TypedTool}; {@link #handler} fixes the output type.
     *
     * @param <I> the arguments' record type
     * @param <O> the output's type, set by {@link #handler}
     */
    public static final class Builder<I extends Record, O> {

        private final String name;
        private final Class<I> argumentsType;
        private String description;
        private Handler<I, O> handler;
        private boolean loopBreaking;
        private boolean parallelSafe;

        private Builder(String name, Class<I> argumentsType) {
            this.name = name;
            this.argumentsType = argumentsType;
        }

        /** What it does and when to use it, for the model; defaults to the record's {@link Description}. */
        public Builder<I, O> description(String description) {
            this.description = description;
            return this;
        }

        /**
         * Whether calling it ends the agent loop; false by default. A result without an
         * {@linkplain ToolEffect effect} then ends the run with its text as the answer; give
         * one ({@link ToolResult#endingRun}) to choose the reason.
         */
        public Builder<I, O> loopBreaking(boolean loopBreaking) {
            this.loopBreaking = loopBreaking;
            return this;
        }

        /** Whether it may run alongside other calls of the same batch; false by default. */
        public Builder<I, O> parallelSafe(boolean parallelSafe) {
            this.parallelSafe = parallelSafe;
            return this;
        }

        /** The handler; its result type becomes the tool's output type. */
        @SuppressWarnings("unchecked")
        public <P> Builder<I, P> handler(Handler<I, P> handler) {
            Builder<I, P> typed = (Builder<I, P>) this; // only the handler field carries O
            typed.handler = Objects.requireNonNull(handler, "handler");
            return typed;
        }

        /**
         * @throws IllegalArgumentException for a bad name, a missing description or an
         *                                  unsupported arguments type
         * @throws NullPointerException     when no handler was given
         */
        public TypedTool<I, O> build() {
            return new TypedTool<>(this);
        }
    }
}
