package dev.bellows.temporal.internal;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.bellows.stream.StreamChunk;
import io.temporal.common.converter.CodecDataConverter;
import io.temporal.common.converter.DataConverter;
import io.temporal.common.converter.DefaultDataConverter;
import io.temporal.common.converter.JacksonJsonPayloadConverter;
import java.util.List;

/**
 * The one JSON mapping of everything a durable run puts into Temporal (workflow and activity
 * inputs and results, heartbeat details, query answers), and the data converter built on it:
 * Jackson for the records, then {@link DeflateCodec} for the large ones. Client and worker must
 * use the same converter; both get it here.
 */
public final class Json {

    /** Records of core and of this module, written by their components; unknown fields are skipped. */
    public static final ObjectMapper MAPPER = new ObjectMapper()
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false)
            .configure(SerializationFeature.FAIL_ON_EMPTY_BEANS, false)
            .addMixIn(StreamChunk.class, Frames.class);

    private static final DataConverter CONVERTER = new CodecDataConverter(
            DefaultDataConverter.newDefaultInstance()
                    .withPayloadConverterOverrides(new JacksonJsonPayloadConverter(MAPPER)),
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
