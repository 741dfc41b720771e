package dev.bellows.bench.loop;

import dev.langchain4j.agent.tool.P;
import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.openai.OpenAiStreamingChatModel;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.TokenStream;
import java.util.concurrent.CompletableFuture;

/**
 * LangChain4j 1.19 as its documentation sets it up: streaming AiServices over its OpenAI
 * module pointed at the mock, one {@code @Tool} method, no chat memory (each task is new),
 * one service built once and shared by every task.
 */
final class LangChain4jStreaming implements Contestant {

    /** The service interface a LangChain4j user writes. */
    interface Assistant {
        TokenStream chat(String message);
    }

    /** The tool, as a LangChain4j user writes it. */
    static final class Calculator {
        @Tool("Adds two integers")
        public String add(@P("the first") int a, @P("the second") int b) {
            return "sum=" + (a + b);
        }
    }

    private final Assistant assistant;

    LangChain4jStreaming(String baseUrl) {
        OpenAiStreamingChatModel model = OpenAiStreamingChatModel.builder()
                .baseUrl(baseUrl)
                .apiKey("bench")
                .modelName("mock")
                .build();
        assistant = AiServices.builder(Assistant.class)
                .streamingChatModel(model)
                .tools(new Calculator())
                .build();
    }

    @Override
    public String name() {
        return "LangChain4j 1.19 streaming AiServices (native tool)";
    }

    @Override
    public String runTask() throws Exception {
        CompletableFuture<ChatResponse> done = new CompletableFuture<>();
        assistant.chat(LoopComparison.TASK)
                .onPartialResponse(text -> { })
                .onCompleteResponse(done::complete)
                .onError(done::completeExceptionally)
                .start();
        return done.get().aiMessage().text();
    }
}
