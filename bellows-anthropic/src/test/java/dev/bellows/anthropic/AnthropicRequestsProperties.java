package dev.bellows.anthropic;

import static org.assertj.core.api.Assertions.assertThatThrownBy;
import dev.bellows.json.internal.Jackson;
import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;
import dev.bellows.http.internal.PartedBody;
import dev.bellows.provider.ChatRequest;
import dev.bellows.provider.Message;
import dev.bellows.provider.NativeToolCall;
import dev.bellows.provider.ProviderException;
import dev.bellows.provider.SignedThinking;
import dev.bellows.provider.ToolSpec;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Assume;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/**
 * Bodies written as bytes with cached parts are byte for byte what the provider sent when it
 * built a tree and a string per request (its UTF-8 bytes), on the first request and on later
 * ones that reuse the cache, for random conversations, tools, options and text; refusals are
 * the same refusals. With prompt caching on, the body is the same JSON with the system text as
 * one marked block and the last tool marked.
 */
class AnthropicRequestsProperties {

    private static final ObjectMapper JSON = Jackson.JSON;

    /** What went on the wire before: the string's UTF-8 bytes; or the refusal's message. */
    private static String reference(ChatRequest request, int defaultMaxTokens, Integer budget) {
        try {
            String body = ReferenceRequestBody.body(request, defaultMaxTokens, budget);
            return new String(body.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8);
        } catch (ProviderException e) {
            return "refused " + e.kind() + ": " + e.getMessage();
        }
    }

    private static String written(AnthropicRequests requests, ChatRequest request) {
        try {
            PartedBody body = requests.write(request);
            assertThat(body.length()).isEqualTo(body.bytes().length);
            return body.text();
        } catch (ProviderException e) {
            return "refused " + e.kind() + ": " + e.getMessage();
        }
    }

    @Property(tries = 600)
    void bytesAreTheOldBodyOnEveryRequest(@ForAll("conversations") List<Message> tail,
                                          @ForAll("conversations") List<Message> more,
                                          @ForAll("texts") String system, @ForAll("toolSets") List<ToolSpec> tools,
                                          @ForAll("options") Options options, @ForAll boolean changeTools) {
        AnthropicRequests requests = new AnthropicRequests(options.defaultMaxTokens(), options.budget(), false);
        List<Message> conversation = new ArrayList<>();
        conversation.add(Message.system(system));
        conversation.add(Message.user("task"));
        // Three requests of a growing conversation, as an agent sends them: the same system
        // string and tools each time, unless the tools change between requests.
        for (int round = 0; round < 3; round++) {
            conversation.addAll(round == 1 ? more : tail);
            List<ToolSpec> offered = changeTools && round == 1 ? tools.subList(0, tools.size() / 2) : tools;
            ChatRequest request = options.apply(ChatRequest.builder().model("claude-\u00e9\uD800").messages(conversation)
                    .tools(offered)).build();
            assertThat(written(requests, request))
                    .isEqualTo(reference(request, options.defaultMaxTokens(), options.budget()));
        }
    }

    @Property(tries = 500)
    void conversationsOfAnyShapeAreWrittenOrRefusedAsBefore(@ForAll("conversations") List<Message> conversation,
                                                            @ForAll("options") Options options) {
        Assume.that(!conversation.isEmpty());   // a request without messages cannot be built
        AnthropicRequests requests = new AnthropicRequests(options.defaultMaxTokens(), options.budget(), false);
        ChatRequest request = options.apply(ChatRequest.builder().model("m").messages(conversation)).build();
        assertThat(written(requests, request)).isEqualTo(reference(request, options.defaultMaxTokens(), options.budget()));
    }

    @Property(tries = 300)
    void promptCachingMarksTheSystemBlockAndTheLastToolAndChangesNothingElse(
            @ForAll("conversations") List<Message> tail, @ForAll("texts") String system,
            @ForAll("toolSets") List<ToolSpec> tools, @ForAll("options") Options options) throws Exception {
        AnthropicRequests requests = new AnthropicRequests(options.defaultMaxTokens(), options.budget(), true);
        List<Message> conversation = new ArrayList<>(List.of(Message.system(system), Message.user("task")));
        conversation.addAll(tail);
        for (int round = 0; round < 2; round++) {
            ChatRequest request = options.apply(ChatRequest.builder().model("m").messages(conversation).tools(tools))
                    .build();
            String reference = reference(request, options.defaultMaxTokens(), options.budget());
            if (reference.startsWith("refused")) {
                assertThat(written(requests, request)).isEqualTo(reference);
                continue;
            }
            ObjectNode expected = (ObjectNode) JSON.readTree(reference);
            if (expected.has("system")) {
                ObjectNode block = JSON.createObjectNode().put("type", "text").put("text", expected.get("system").asString());
                block.putObject("cache_control").put("type", "ephemeral");
                expected.set("system", JSON.createArrayNode().add(block));
            }
            if (expected.has("tools")) {
                ArrayNode array = (ArrayNode) expected.get("tools");
                ((ObjectNode) array.get(array.size() - 1)).putObject("cache_control").put("type", "ephemeral");
            }
            assertThat(JSON.readTree(written(requests, request))).isEqualTo(expected);
        }
    }

    @Test
    void aSchemaCannotChangeInPlaceSoTheCachedToolsStayRight() throws Exception {
        AnthropicRequests requests = new AnthropicRequests(4096, null, false);
        ToolSpec tool = tool("add", "Adds");
        ChatRequest request = ChatRequest.builder().model("m").message(Message.user("hi")).tools(List.of(tool)).build();
        String before = written(requests, request);
        assertThat(before).isEqualTo(reference(request, 4096, null));
        assertThatThrownBy(() -> ((ObjectNode) tool.parameters().get("properties")).putObject("c"))
                .isInstanceOf(UnsupportedOperationException.class);
        assertThat(written(requests, request)).isEqualTo(before).doesNotContain("\"c\"");
        ObjectNode changed = (ObjectNode) tool.parameters().deepCopy();
        changed.withObjectProperty("properties").putObject("c").put("type", "string");
        ChatRequest other = ChatRequest.builder().model("m").message(Message.user("hi"))
                .tools(List.of(new ToolSpec("add", "Adds", changed))).build();
        assertThat(written(requests, other)).contains("\"c\":{\"type\":\"string\"}")
                .isEqualTo(reference(other, 4096, null));
    }

    @Test
    void anotherSystemTextIsNeverServedStale() {
        AnthropicRequests requests = new AnthropicRequests(4096, null, false);
        for (String system : List.of("rules", new String("rules"), "other rules", "rules")) {
            ChatRequest request = ChatRequest.builder().model("m").message(Message.system(system))
                    .message(Message.user("hi")).build();
            assertThat(written(requests, request)).contains(system).isEqualTo(reference(request, 4096, null));
        }
    }

    @Test
    void theCachedPartsAreSentAsTheirOwnPartsNotCopied() throws Exception {
        AnthropicRequests requests = new AnthropicRequests(4096, null, false);
        ChatRequest request = ChatRequest.builder().model("m").message(Message.system("rules"))
                .message(Message.user("hi")).tools(List.of(tool("add", "Adds"))).build();
        PartedBody first = requests.write(request);
        PartedBody second = requests.write(ChatRequest.builder().model("m").messages(request.messages())
                .message(Message.assistant("more")).message(Message.user("again")).tools(request.tools()).build());
        // system and tools: the very arrays encoded for the first request, not encoded again
        assertThat(second.cachedParts().length).isEqualTo(2);
        assertThat(second.cachedParts()[0]).isSameAs(first.cachedParts()[0]);
        assertThat(second.cachedParts()[1]).isSameAs(first.cachedParts()[1]);
        assertThat(new String(first.cachedParts()[0], StandardCharsets.UTF_8)).isEqualTo(",\"system\":\"rules\"");
        assertThat(second.publisher().contentLength()).isEqualTo(second.length());
        assertThat(first.text()).isEqualTo(reference(request, 4096, null));

        ChatRequest changed = ChatRequest.builder().model("m").message(Message.system("other rules"))
                .message(Message.user("hi")).tools(List.of(tool("add", "Adds"))).build();
        PartedBody third = requests.write(changed);
        assertThat(third.cachedParts()[0]).isNotSameAs(first.cachedParts()[0]);
        assertThat(third.cachedParts()[1]).as("other ToolSpec objects").isNotSameAs(first.cachedParts()[1]);
        assertThat(third.text()).isEqualTo(reference(changed, 4096, null));
    }

    /** The request options and the provider's thinking budget. */
    record Options(Double temperature, Double topP, Integer maxTokens, List<String> stops, Integer budget,
                   int defaultMaxTokens) {
        ChatRequest.Builder apply(ChatRequest.Builder builder) {
            if (temperature != null) {
                builder.temperature(temperature);
            }
            if (topP != null) {
                builder.topP(topP);
            }
            if (maxTokens != null) {
                builder.maxTokens(maxTokens);
            }
            return builder.stopSequences(stops);
        }
    }

    @Provide
    Arbitrary<Options> options() {
        return Combinators.combine(
                Arbitraries.of(0.0, 0.25, 1.0, 0.7000000000000001).injectNull(0.5),
                Arbitraries.of(0.9, 1e-5).injectNull(0.5),
                Arbitraries.of(1, 9, 512, 2048, 16000).injectNull(0.5),
                texts().filter(text -> !text.isEmpty()).list().ofMaxSize(2),
                Arbitraries.of(1024, 2048).injectNull(0.5),
                Arbitraries.of(4096, 20000)).as(Options::new);
    }

    @Provide
    Arbitrary<String> texts() {
        return Arbitraries.oneOf(
                        Arbitraries.strings().withChars("ab \"\\/\n\r\t\b\f\u0001\u001f\u007f<>&'"),
                        Arbitraries.of("é", "€", "中", "😀", "\u2028", "\u2029", "\uD800", "\uDC00x", "\u0000", "\uFFFF",
                                "\uD83D", "\uDE00"))
                .list().ofMaxSize(6).map(parts -> String.join("", parts));
    }

    /** Tool arguments as models send them: objects, other JSON, broken JSON, odd numbers and escapes. */
    @Provide
    Arbitrary<String> arguments() {
        Arbitrary<String> objects = Combinators.combine(texts(), Arbitraries.of("1", "-0", "1.10", "1e3", "2.5E-7",
                        "123456789012345678901234567890", "1.0000000000000000001", "true", "null", "[1,{\"x\":[]}]",
                        "\"\\ud800\"", "\"\\uD83D\\uDE00\"", "\"\\u00e9\\n\"", "{\"n\":{}}"))
                .as((key, value) -> "{\"" + key.replace("\\", "\\\\").replace("\"", "\\\"").replaceAll("[\\x00-\\x1f]", "")
                        + "\": " + value + ", \"b\" : 2}");
        return Arbitraries.oneOf(objects, Arbitraries.of("", "  ", "{}", "[1,2]", "\"text\"", "42", "null", "{\"a\":",
                "{\"a\":1,\"a\":2}", "{\"a\":1} trailing", "{'a':1}", "{\"a\":1}{\"b\":2}", "\uD800"), texts());
    }

    @Provide
    Arbitrary<List<ToolSpec>> toolSets() {
        return Arbitraries.of(List.of(), List.of(tool("add", "Adds \"two\" numbers \u00e9\u2028")),
                List.of(tool("add", "Adds"), tool("read", "Reads \uD83D\uDE00"), tool("write", "")));
    }

    @Provide
    Arbitrary<List<Message>> conversations() {
        Arbitrary<NativeToolCall> call = Combinators.combine(texts(), texts(), arguments())
                .as(NativeToolCall::new);
        Arbitrary<SignedThinking> thinking = Arbitraries.oneOf(
                Combinators.combine(texts(), texts()).as(SignedThinking::signed),
                texts().map(SignedThinking::redacted));
        Arbitrary<Message> message = Arbitraries.oneOf(
                texts().map(Message::user),
                texts().map(Message::assistant),
                Combinators.combine(texts(), call.list().ofMaxSize(2), thinking.list().ofMaxSize(2))
                        .as(Message::assistant),
                Combinators.combine(texts(), texts()).as(Message::toolResult),
                texts().map(Message::system));
        return message.list().ofMaxSize(5);
    }

    private static ToolSpec tool(String name, String description) {
        ObjectNode schema = JSON.createObjectNode().put("type", "object");
        schema.putObject("properties").putObject("a").put("type", "integer").put("description", "the \u2028first \uD800");
        schema.putArray("required").add("a");
        schema.put("minimum", 1.5);
        return new ToolSpec(name, description, schema);
    }
}
