package dev.bellows.openai;

import static org.assertj.core.api.Assertions.assertThatThrownBy;
import dev.bellows.json.internal.Jackson;
import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ObjectNode;
import dev.bellows.openai.OpenAiProvider.MaxTokensField;
import dev.bellows.provider.ChatRequest;
import dev.bellows.provider.Message;
import dev.bellows.provider.NativeToolCall;
import dev.bellows.provider.ToolSpec;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/**
 * Bodies written as bytes with cached parts are byte for byte what the provider sent when it
 * wrote a string per request, on the first request and on later ones that reuse the cache.
 */
class RequestBodiesProperties {

    private static final ObjectMapper JSON = Jackson.JSON;

    private static String written(RequestBodies bodies, ChatRequest request) {
        return bodies.write(request).text();
    }

    private static String reference(ChatRequest request, MaxTokensField field, boolean includeUsage) {
        // What went on the wire: the string's UTF-8 bytes, read back
        return new String(ReferenceRequestBody.requestBody(request, field, includeUsage).getBytes(StandardCharsets.UTF_8),
                StandardCharsets.UTF_8);
    }

    @Property(tries = 500)
    void bytesAreTheOldBodyOnEveryRequest(@ForAll("conversations") List<Message> tail, @ForAll("texts") String system,
                                          @ForAll boolean includeUsage, @ForAll boolean withTools,
                                          @ForAll boolean withOptions) {
        MaxTokensField field = includeUsage ? MaxTokensField.MAX_TOKENS : MaxTokensField.MAX_COMPLETION_TOKENS;
        RequestBodies bodies = new RequestBodies(field.jsonName(), includeUsage, true);
        List<ToolSpec> tools = withTools ? List.of(tool("add", "Adds \"two\" numbers é"), tool("read", "Reads")) : List.of();
        List<Message> conversation = new ArrayList<>();
        conversation.add(Message.system(system));
        // Three requests of a growing conversation, the same system string and tools each time.
        for (int round = 0; round < 3; round++) {
            conversation.addAll(tail);
            ChatRequest.Builder builder = ChatRequest.builder().model("m\u00e9del").messages(conversation).tools(tools);
            if (withOptions) {
                builder.temperature(0.7).topP(0.25).maxTokens(100).stopSequences(List.of("</x>", "\n"));
            }
            ChatRequest request = builder.build();
            assertThat(written(bodies, request)).isEqualTo(reference(request, field, includeUsage));
        }
    }

    @Test
    void aSchemaCannotChangeInPlaceSoTheCachedToolsStayRight() {
        RequestBodies bodies = new RequestBodies("max_tokens", true, true);
        ToolSpec tool = tool("add", "Adds");
        ChatRequest request = ChatRequest.builder().model("m").message(Message.user("hi")).tools(List.of(tool)).build();
        String before = written(bodies, request);
        assertThat(before).isEqualTo(reference(request, MaxTokensField.MAX_TOKENS, true));
        assertThatThrownBy(() -> ((ObjectNode) tool.parameters().get("properties")).putObject("c"))
                .isInstanceOf(UnsupportedOperationException.class);
        assertThat(written(bodies, request)).isEqualTo(before).doesNotContain("\"c\"");
        ObjectNode changed = (ObjectNode) tool.parameters().deepCopy();
        changed.withObjectProperty("properties").putObject("c").put("type", "string");
        ChatRequest other = ChatRequest.builder().model("m").message(Message.user("hi"))
                .tools(List.of(new ToolSpec("add", "Adds", changed))).build();
        assertThat(written(bodies, other)).contains("\"c\":{\"type\":\"string\"}")
                .isEqualTo(reference(other, MaxTokensField.MAX_TOKENS, true));
    }

    @Test
    void anotherSystemStringWithTheSameTextIsWrittenTheSame() {
        RequestBodies bodies = new RequestBodies("max_tokens", true, true);
        for (String system : List.of("rules", new String("rules"), "other rules")) {
            ChatRequest request = ChatRequest.builder().model("m").message(Message.system(system))
                    .message(Message.user("hi")).build();
            assertThat(written(bodies, request)).isEqualTo(reference(request, MaxTokensField.MAX_TOKENS, true));
        }
    }

    private static ToolSpec tool(String name, String description) {
        ObjectNode schema = JSON.createObjectNode().put("type", "object");
        schema.putObject("properties").putObject("a").put("type", "integer").put("description", "the \u2028first");
        schema.putArray("required").add("a");
        return new ToolSpec(name, description, schema);
    }

    @Provide
    Arbitrary<String> texts() {
        return Arbitraries.oneOf(
                        Arbitraries.strings().withChars("ab \"\\/\n\t\u0001\u007f<>&'"),
                        Arbitraries.of("é", "€", "中", "😀", "\u2028", "\uD800", "\uDC00x", "\u0000", "\uFFFF"))
                .list().ofMaxSize(6).map(parts -> String.join("", parts));
    }

    @Provide
    Arbitrary<List<Message>> conversations() {
        Arbitrary<NativeToolCall> call = Combinators.combine(texts(), texts())
                .as((id, arguments) -> new NativeToolCall("call_" + Math.abs(id.hashCode()), "add", arguments));
        Arbitrary<Message> message = Arbitraries.oneOf(
                texts().map(Message::user),
                texts().map(Message::assistant),
                Combinators.combine(texts(), call.list().ofMinSize(1).ofMaxSize(2))
                        .as((text, calls) -> Message.assistant(text, calls, List.of())),
                Combinators.combine(texts(), texts()).as((id, text) -> Message.toolResult("call_" + Math.abs(id.hashCode()), text)),
                texts().map(Message::system));
        return message.list().ofMaxSize(4);
    }
}
