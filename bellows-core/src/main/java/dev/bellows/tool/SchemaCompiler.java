package dev.bellows.tool;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;
import com.networknt.schema.Error;
import com.networknt.schema.InvalidSchemaRefException;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SchemaRegistryConfig;
import com.networknt.schema.SpecificationVersion;
import com.networknt.schema.dialect.BasicDialectRegistry;
import com.networknt.schema.dialect.Dialect;
import com.networknt.schema.dialect.Dialects;
import com.networknt.schema.resource.ClasspathResourceLoader;
import com.networknt.schema.resource.InputStreamSource;
import com.networknt.schema.resource.SchemaLoader;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.PatternSyntaxException;

/**
 * Turns a tool's schema into the validator's compiled form, once per schema. Every JSON Schema
 * version the validator knows is read (2020-12 when the schema does not say, draft-07 and the
 * others by their {@code $schema}); the schema is first checked against its version's
 * meta-schema, so that a broken schema is reported when the tool is registered.
 *
 * <h2>Formats</h2>
 * {@code format} is an assertion for the formats a tool can rely on and a model can get right:
 * {@link #ASSERTED_FORMATS} ({@code date-time}, {@code date}, {@code time}, {@code duration},
 * {@code email}, {@code uuid}, {@code uri}, {@code ipv4}, {@code ipv6}). Others
 * ({@code hostname}, {@code uri-reference}, {@code regex}, OpenAPI's {@code int32}...) are
 * annotations only: either almost any string passes them, or Java reads them differently
 * from the JavaScript most servers are written in.
 *
 * <h2>Remote schemas</h2>
 * Nothing is fetched: a {@code $ref} to another document (other than the JSON Schema
 * meta-schemas, which the validator ships) accepts any value, and the tool or its server
 * checks that part itself.
 */
final class SchemaCompiler {

    /** The formats that are checked, not just described. */
    static final Set<String> ASSERTED_FORMATS = Set.of("date-time", "date", "time", "duration", "email", "uuid",
            "uri", "ipv4", "ipv6");

    // Where a schema without $id lives, for the validator's bookkeeping; never fetched.
    private static final String ROOT_IRI = "urn:bellows:tool-arguments";

    private static final Map<SpecificationVersion, Dialect> DIALECTS = dialects();

    private static final SchemaLoader LOADER = SchemaLoader.builder()
            .resourceLoaders(loaders -> loaders.values(list -> {
                list.clear();
                list.add(SchemaCompiler::load);
            }))
            .build();

    private static final SchemaRegistryConfig CONFIG = SchemaRegistryConfig.builder()
            .formatAssertionsEnabled(true)
            .build();

    /** For the meta-schemas only, which are the same for every tool: compiled once, then shared. */
    private static final SchemaRegistry META_REGISTRY = registry();
    private static final Map<SpecificationVersion, Schema> META_SCHEMAS = new EnumMap<>(SpecificationVersion.class);

    private SchemaCompiler() {
    }

    /** The compiled schema and the normalized copy it was compiled from. */
    record Compiled(Schema schema, ObjectNode source, SpecificationVersion version) {
    }

    /**
     * @throws InvalidSchemaException when the schema cannot be used; the message says where and why
     */
    static Compiled compile(JsonNode schema) {
        ObjectNode normalized = SchemaNormalizer.normalize(schema);
        SpecificationVersion version = normalized.has("$schema")
                ? SchemaNormalizer.dialect(normalized.get("$schema").stringValue(null)).orElseThrow()
                : SpecificationVersion.DRAFT_2020_12;
        JsonNode node = normalized;
        checkAgainstMetaSchema(node, version);
        try {
            // A registry per schema: schemas of different tools may use the same $id for different things.
            Schema compiled = registry().getSchema(SchemaLocation.of(ROOT_IRI), node);
            compiled.initializeValidators();
            return new Compiled(compiled, normalized, version);
        } catch (InvalidSchemaException e) {
            throw e;
        } catch (StackOverflowError e) {
            throw new InvalidSchemaException("the tool's JSON Schema refers to itself without end ($ref cycle)");
        } catch (RuntimeException e) {
            throw new InvalidSchemaException("the tool's JSON Schema cannot be used: " + reason(e), e);
        }
    }

    private static void checkAgainstMetaSchema(JsonNode schema, SpecificationVersion version) {
        Schema meta = metaSchema(version);
        List<Error> errors = meta.validate(schema);
        if (errors.isEmpty()) {
            return;
        }
        JsonNode document = schema;
        // One problem per place in the schema: the first the meta-schema found there says the most.
        Set<String> places = new LinkedHashSet<>();
        List<String> problems = new ArrayList<>();
        for (Error error : errors) {
            InstancePath at = InstancePath.of(error.getInstanceLocation());
            String pointer = pointer(at);
            if (places.add(pointer)) {
                problems.add((pointer.isEmpty() ? "at its root" : "at " + pointer) + ": "
                        + ProblemReport.describeSchemaError(error, document));
            }
        }
        throw new InvalidSchemaException("the tool's JSON Schema is not valid " + name(version) + ": "
                + String.join("; ", problems.subList(0, Math.min(problems.size(), 10)))
                + (problems.size() > 10 ? "; and " + (problems.size() - 10) + " more" : ""));
    }

    private static synchronized Schema metaSchema(SpecificationVersion version) {
        return META_SCHEMAS.computeIfAbsent(version, v -> {
            Schema meta = META_REGISTRY.getSchema(SchemaLocation.of(v.getDialectId()));
            meta.initializeValidators();
            return meta;
        });
    }

    private static SchemaRegistry registry() {
        return SchemaRegistry.builder()
                .dialectRegistry(new BasicDialectRegistry(DIALECTS.values()))
                .defaultDialectId(SpecificationVersion.DRAFT_2020_12.getDialectId())
                .schemaLoader(LOADER)
                .schemaRegistryConfig(CONFIG)
                .build();
    }

    private static Map<SpecificationVersion, Dialect> dialects() {
        Map<SpecificationVersion, Dialect> dialects = new EnumMap<>(SpecificationVersion.class);
        for (Dialect standard : List.of(Dialects.getDraft4(), Dialects.getDraft6(), Dialects.getDraft7(),
                Dialects.getDraft201909(), Dialects.getDraft202012())) {
            dialects.put(standard.getSpecificationVersion(), Dialect.builder(standard)
                    .formats(formats -> formats.keySet().retainAll(ASSERTED_FORMATS))
                    .build());
        }
        return dialects;
    }

    /** The meta-schemas come with the validator; any other document is not fetched and allows anything. */
    private static InputStreamSource load(com.networknt.schema.AbsoluteIri iri) {
        String text = iri.toString();
        if (text.startsWith("classpath:draft")) { // where the validator keeps the meta-schemas
            return ClasspathResourceLoader.getInstance().getResource(iri);
        }
        return () -> new ByteArrayInputStream("true".getBytes(StandardCharsets.UTF_8));
    }

    private static String reason(RuntimeException e) {
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof PatternSyntaxException pattern) {
                return "\"" + pattern.getPattern() + "\" is not a regular expression (" + pattern.getDescription() + ")";
            }
            if (cause instanceof InvalidSchemaRefException) {
                return "a $ref cannot be resolved (" + cause.getMessage() + ")";
            }
        }
        String message = e.getMessage();
        // The validator's own words are fine ("minimum value is not a number"); a wrapped Java
        // exception's are not for a tool's author to decode.
        return message == null || message.isBlank() || message.contains("Exception") || message.contains("java.")
                ? "it cannot be compiled" : message;
    }

    private static String pointer(InstancePath path) {
        StringBuilder out = new StringBuilder();
        for (Object step : path.steps()) {
            out.append('/').append(String.valueOf(step).replace("~", "~0").replace("/", "~1"));
        }
        return out.toString();
    }

    private static String name(SpecificationVersion version) {
        return switch (version) {
            case DRAFT_4 -> "JSON Schema draft-04";
            case DRAFT_6 -> "JSON Schema draft-06";
            case DRAFT_7 -> "JSON Schema draft-07";
            case DRAFT_2019_09 -> "JSON Schema 2019-09";
            case DRAFT_2020_12 -> "JSON Schema 2020-12";
        };
    }

    static String versionName(SpecificationVersion version) {
        return name(version);
    }
}
