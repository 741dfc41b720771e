package dev.bellows.json.internal;

import tools.jackson.databind.cfg.EnumFeature;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.core.util.JsonRecyclerPools;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.dataformat.yaml.YAMLFactory;
import tools.jackson.dataformat.yaml.YAMLMapper;
import tools.jackson.dataformat.yaml.YAMLWriteFeature;

/**
 * The one Jackson configuration of Bellows: every module reads and writes JSON (and YAML)
 * through these mappers, and what one use needs beyond them it asks of a reader or a writer
 * made from them ({@code JSON.reader().with(...)}), which shares the mapper's caches.
 *
 * <p><b>Not API.</b> This package is Bellows' own plumbing, shared by its modules; it may
 * change in any release. Applications make their own mapper.
 *
 * <p>The mappers are immutable and thread-safe. Their settings:
 * <ul>
 * <li>Jackson 2's defaults ({@code configureForJackson2}): Bellows' output was fixed on
 *     Jackson 2 (the stream contract's and the sessions' JSON, the CLI's JSON lines), and
 *     with them properties keep their declared order, enums are written by name and unknown
 *     properties are refused, as before.</li>
 * <li>Buffers from a pool every thread shares: each run goes on on a new virtual thread, which
 *     a per-thread pool would give new buffers each time.</li>
 * <li>A constructor of properties (a record's) is called by reflection, not by
 *     Jackson 3's {@code invokeWithArguments}, which allocates anew on every call
 *     ({@code DirectCreators}).</li>
 * <li>Strings of any length: tool arguments and results of many megabytes are in memory
 *     already (the server bounds request bodies itself). Nesting keeps Jackson's limit, which
 *     protects the stack.</li>
 * </ul>
 */
public final class Jackson {

    /** The JSON mapper. */
    public static final JsonMapper JSON = JsonMapper.builder(JsonFactory.builder()
                    .recyclerPool(JsonRecyclerPools.sharedConcurrentDequePool())
                    .streamReadConstraints(StreamReadConstraints.builder().maxStringLength(Integer.MAX_VALUE).build())
                    .build())
            .configureForJackson2()
            .addModule(new DirectCreators())
            .build();

    /**
     * Binds a model's arguments (and a typed run's answer) to Java types: a null never becomes
     * 0 or false, and a number never picks an enum constant by its position.
     */
    public static final ObjectReader ARGUMENTS = JSON.reader()
            .with(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .with(EnumFeature.FAIL_ON_NUMBERS_FOR_ENUMS);

    /** Nodes for trees built by hand. */
    public static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    /**
     * YAML as Bellows shows it to a model (prompts' example calls, tool outputs): no document
     * marker, quotes only where YAML needs them, and any value written (an object without
     * properties becomes {@code {}}). Reading YAML takes the same mapper.
     */
    public static final YAMLMapper YAML = YAMLMapper.builder(YAMLFactory.builder()
                    .recyclerPool(JsonRecyclerPools.sharedConcurrentDequePool())
                    .build())
            .configureForJackson2()
            .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
            .disable(YAMLWriteFeature.WRITE_DOC_START_MARKER)
            .enable(YAMLWriteFeature.MINIMIZE_QUOTES)
            .build();

    private Jackson() {
    }
}
