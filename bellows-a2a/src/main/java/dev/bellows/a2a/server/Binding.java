package dev.bellows.a2a.server;

import dev.bellows.a2a.A2aError;
import dev.bellows.a2a.A2aException;
import dev.bellows.a2a.SendMessageRequest;
import dev.bellows.a2a.SendMessageResponse;
import dev.bellows.a2a.StreamResponse;
import dev.bellows.a2a.Task;
import dev.bellows.server.ServerExchange;
import java.io.IOException;
import java.util.concurrent.CompletionException;
import java.util.function.Function;

/** What both bindings do the same way: sending (blocking, or streamed) and subscribing. */
abstract class Binding {

    final TaskEngine engine;
    final Streams streams;

    Binding(TaskEngine engine, Streams streams) {
        this.engine = engine;
        this.streams = streams;
    }

    /** Answers the request with the error in the binding's form. */
    abstract void error(ServerExchange exchange, Object requestId, A2aException error) throws IOException;

    SendMessageResponse send(String principal, SendMessageRequest request) {
        boolean immediately = request.configuration() != null
                && Boolean.TRUE.equals(request.configuration().returnImmediately());
        Integer historyLength = request.configuration() == null ? null : request.configuration().historyLength();
        TaskEngine.checkHistoryLength(historyLength);
        TaskEngine.Started started = engine.send(principal, request, immediately);
        if (immediately) {
            return new SendMessageResponse(TaskEngine.withHistory(started.turn().live().snapshot(), historyLength), null);
        }
        Turn.First first = started.turn().first().join();
        if (first instanceof Turn.Failed failed) {
            throw asA2a(failed.cause());
        }
        if (first instanceof Turn.Replied replied) {
            return new SendMessageResponse(null, replied.message());
        }
        started.turn().settled().join();
        Task task = started.turn().live().snapshot();
        return new SendMessageResponse(TaskEngine.withHistory(task, historyLength), null);
    }

    void sendStreaming(ServerExchange exchange, Object requestId, String principal, SendMessageRequest request,
                       Function<StreamResponse, byte[]> frame) throws IOException {
        TaskEngine.Started started;
        Turn.First first;
        try {
            started = engine.send(principal, request, false);
            first = started.turn().first().join();
            if (first instanceof Turn.Failed failed) {
                throw asA2a(failed.cause());
            }
        } catch (A2aException e) {
            error(exchange, requestId, e);
            return;
        }
        if (first instanceof Turn.Replied replied) {
            streams.single(exchange, frame.apply(StreamResponse.of(replied.message())));
            return;
        }
        streams.task(exchange, started.turn().live(), started.subscription(), frame);
    }

    void subscribe(ServerExchange exchange, Object requestId, String principal, String taskId,
                   Function<StreamResponse, byte[]> frame) throws IOException {
        LiveTask task;
        try {
            task = engine.subscribable(principal, taskId);
        } catch (A2aException e) {
            error(exchange, requestId, e);
            return;
        }
        streams.task(exchange, task, task.subscribe(), frame);
    }

    static A2aException asA2a(Throwable cause) {
        Throwable t = cause instanceof CompletionException && cause.getCause() != null ? cause.getCause() : cause;
        return t instanceof A2aException a2a ? a2a
                : new A2aException(A2aError.INTERNAL_ERROR, "the agent failed: " + t.getMessage());
    }
}
