package dev.bellows.examples.springboot;

import dev.bellows.agent.Agent;
import dev.bellows.agent.Session;
import dev.bellows.spring.web.AgentEventsSse;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;

/** {@code GET /ask?task=...}: the run's events, one JSON object per Server-Sent Event. */
@RestController
public class AskController {

    private final Agent agent;

    public AskController(Agent agent) {
        this.agent = agent;
    }

    @GetMapping(path = "/ask", produces = MediaType.TEXT_EVENT_STREAM_VALUE)
    public SseEmitter ask(@RequestParam String task) {
        // A Session per request: the one agent serves every browser at once.
        return AgentEventsSse.stream(agent.run(task, new Session()));
    }
}
