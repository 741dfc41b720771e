package dev.bellows.opentelemetry;

import static io.opentelemetry.api.common.AttributeKey.booleanKey;
import static io.opentelemetry.api.common.AttributeKey.doubleKey;
import static io.opentelemetry.api.common.AttributeKey.longKey;
import static io.opentelemetry.api.common.AttributeKey.stringArrayKey;
import static io.opentelemetry.api.common.AttributeKey.stringKey;

import io.opentelemetry.api.common.AttributeKey;
import java.util.List;

/**
 * The attribute keys of the OpenTelemetry GenAI semantic conventions (and {@code server.*},
 * {@code error.type}) that Bellows sets, and its own under {@code bellows.}. Written out here
 * rather than taken from the incubating semconv artifact, whose names still move.
 */
final class GenAi {

    static final AttributeKey<String> OPERATION_NAME = stringKey("gen_ai.operation.name");
    static final AttributeKey<String> PROVIDER_NAME = stringKey("gen_ai.provider.name");
    static final AttributeKey<String> AGENT_NAME = stringKey("gen_ai.agent.name");
    static final AttributeKey<String> CONVERSATION_ID = stringKey("gen_ai.conversation.id");
    static final AttributeKey<String> REQUEST_MODEL = stringKey("gen_ai.request.model");
    static final AttributeKey<Boolean> REQUEST_STREAM = booleanKey("gen_ai.request.stream");
    static final AttributeKey<Double> REQUEST_TEMPERATURE = doubleKey("gen_ai.request.temperature");
    static final AttributeKey<Double> REQUEST_TOP_P = doubleKey("gen_ai.request.top_p");
    static final AttributeKey<Long> REQUEST_MAX_TOKENS = longKey("gen_ai.request.max_tokens");
    static final AttributeKey<List<String>> REQUEST_STOP_SEQUENCES = stringArrayKey("gen_ai.request.stop_sequences");
    static final AttributeKey<String> RESPONSE_MODEL = stringKey("gen_ai.response.model");
    static final AttributeKey<String> RESPONSE_ID = stringKey("gen_ai.response.id");
    static final AttributeKey<List<String>> FINISH_REASONS = stringArrayKey("gen_ai.response.finish_reasons");
    static final AttributeKey<Double> TIME_TO_FIRST_CHUNK = doubleKey("gen_ai.response.time_to_first_chunk");
    static final AttributeKey<Long> INPUT_TOKENS = longKey("gen_ai.usage.input_tokens");
    static final AttributeKey<Long> OUTPUT_TOKENS = longKey("gen_ai.usage.output_tokens");
    static final AttributeKey<String> TOKEN_TYPE = stringKey("gen_ai.token.type");
    static final AttributeKey<String> TOOL_NAME = stringKey("gen_ai.tool.name");
    static final AttributeKey<String> TOOL_CALL_ID = stringKey("gen_ai.tool.call.id");
    static final AttributeKey<String> TOOL_DESCRIPTION = stringKey("gen_ai.tool.description");
    static final AttributeKey<String> TOOL_TYPE = stringKey("gen_ai.tool.type");
    static final AttributeKey<String> SERVER_ADDRESS = stringKey("server.address");
    static final AttributeKey<Long> SERVER_PORT = longKey("server.port");
    static final AttributeKey<String> ERROR_TYPE = stringKey("error.type");

    // Opt-in content (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true), as JSON text:
    // the conventions' structured values serialised, as they say to do on spans.
    static final AttributeKey<String> INPUT_MESSAGES = stringKey("gen_ai.input.messages");
    static final AttributeKey<String> OUTPUT_MESSAGES = stringKey("gen_ai.output.messages");
    static final AttributeKey<String> TOOL_CALL_ARGUMENTS = stringKey("gen_ai.tool.call.arguments");
    static final AttributeKey<String> TOOL_CALL_RESULT = stringKey("gen_ai.tool.call.result");

    static final AttributeKey<String> LOOP_END_REASON = stringKey("bellows.loop.end_reason");
    static final AttributeKey<String> TOOL_SERVER = stringKey("bellows.tool.server");

    static final String INVOKE_AGENT = "invoke_agent";
    static final String CHAT = "chat";
    static final String EXECUTE_TOOL = "execute_tool";
    /** The conventions' fallback {@code error.type} when nothing more specific is known. */
    static final String OTHER_ERROR = "_OTHER";

    private GenAi() {
    }
}
