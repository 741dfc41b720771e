package dev.bellows.temporal.internal;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import dev.bellows.json.internal.Jackson;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.SerializationFeature;
import dev.bellows.stream.StreamChunk;
import io.temporal.common.converter.CodecDataConverter;
import io.temporal.common.converter.DataConverter;
import io.temporal.common.converter.DefaultDataConverter;
import io.temporal.common.converter.Jackson3JsonPayloadConverter;
import java.util.List;

/**
 * The one JSON mapping of everything a durable run puts into Temporal (workflow and activity
 * inputs and results, heartbeat details, query answers), and the data converter built on it:
 * Jackson for the records, then {@link DeflateCodec} for the large ones. Client and worker must
 * use the same converter; both get it here.
 */
public final class Json {

    /**
     * Records of core and of this module, written by their components; unknown fields are
     * skipped. Bellows' one mapper, plus what Temporal's records need: the frames' kinds.
     */
    public static final JsonMapper MAPPER = Jackson.JSON.rebuild()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
            .addMixIn(StreamChunk.class, Frames.class)
            .build();

    // Every Bellows value goes through Jackson 3 here (the SDK's converter for it, on this
    // mapper): Temporal's default JSON converter is on its Jackson 2 and would write a Jackson 3
    // tree as a bean.
    private static final DataConverter CONVERTER = new CodecDataConverter(
            DefaultDataConverter.newDefaultInstance()
                    .withPayloadConverterOverrides(new Jackson3JsonPayloadConverter(MAPPER)),
            List.of(new DeflateCodec()));

    private Json() {
    }

    /**
     * A recorded answer's frames by kind ({@code "f"}). Only the frames a provider's one attempt
     * streams: a {@code Restart} comes from a retrying provider, which the activity does not use.
     */
    @JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "f")
    @JsonSubTypes({
            @JsonSubTypes.Type(value = StreamChunk.Text.class, name = "text"),
            @JsonSubTypes.Type(value = StreamChunk.Reasoning.class, name = "reasoning"),
            @JsonSubTypes.Type(value = StreamChunk.ToolCallDelta.class, name = "tool_call"),
            @JsonSubTypes.Type(value = StreamChunk.ThinkingSignature.class, name = "signature"),
            @JsonSubTypes.Type(value = StreamChunk.ResponseInfo.class, name = "response"),
            @JsonSubTypes.Type(value = StreamChunk.Usage.class, name = "usage")})
    private interface Frames {
    }

    /** Jackson for values, deflate for payloads above {@link DeflateCodec#THRESHOLD}. */
    public static DataConverter dataConverter() {
        return CONVERTER;
    }
}
