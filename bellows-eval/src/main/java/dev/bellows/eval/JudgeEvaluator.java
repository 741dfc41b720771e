package dev.bellows.eval;

import tools.jackson.core.JacksonException;
import dev.bellows.json.internal.Jackson;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import dev.bellows.provider.ChatRequest;
import dev.bellows.provider.ChatStream;
import dev.bellows.provider.Message;
import dev.bellows.provider.ProviderException;
import dev.bellows.stream.StreamChunk;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A model as judge: asks the {@link EvalContext#judge() judge model} whether the answer meets
 * the rubric, reads a score in 0..1 and a reason from its answer, and passes at
 * {@code minScore} or more. The call goes to the judge's provider directly: nothing of it
 * reaches the subject's events or figures.
 */
final class JudgeEvaluator implements Evaluator {

    static final String NAME = "judge";
    private static final ObjectMapper MAPPER = Jackson.JSON;
    private static final Pattern LOOSE_SCORE = Pattern.compile("\"?score\"?\\s*[:=]\\s*(-?[0-9]+(?:\\.[0-9]+)?)",
            Pattern.CASE_INSENSITIVE);
    private static final String INSTRUCTIONS = """
            You grade an AI agent's answer against a rubric. Read the task, the answer and the rubric, \
            then reply with one JSON object and nothing else: {"score": S, "reason": "R"}, where S is a \
            number from 0 (the answer does not meet the rubric at all) to 1 (it fully meets it) and R is \
            one sentence saying why.""";

    private final String rubric;
    private final double minScore;

    JudgeEvaluator(String rubric, double minScore) {
        this.rubric = rubric;
        this.minScore = minScore;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Score evaluate(RunRecord run, EvalContext context) throws InterruptedException {
        Optional<JudgeModel> judge = context.judge();
        if (judge.isEmpty()) {
            return Score.fail(NAME, "no judge model is configured");
        }
        StringBuilder prompt = new StringBuilder();
        if (!run.evalCase().history().isEmpty()) {
            // the task may only make sense after the conversation the case gives before it
            prompt.append("Conversation before the task:\n");
            for (Message message : run.evalCase().history()) {
                prompt.append(message.role().toString().toLowerCase(java.util.Locale.ROOT)).append(": ")
                        .append(message.content()).append('\n');
            }
            prompt.append('\n');
        }
        prompt.append("Task:\n").append(run.evalCase().task()).append("\n\nAnswer:\n").append(run.answer())
                .append("\n\nRubric:\n").append(rubric);
        ChatRequest request = ChatRequest.builder().model(judge.get().model())
                .message(Message.system(INSTRUCTIONS)).message(Message.user(prompt.toString())).build();
        StringBuilder answer = new StringBuilder();
        try (ChatStream stream = judge.get().provider().stream(request)) {
            for (StreamChunk chunk = stream.next(); chunk != null; chunk = stream.next()) {
                if (chunk instanceof StreamChunk.Text text) {
                    answer.append(text.text());
                }
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
            }
        } catch (ProviderException e) {
            return Score.fail(NAME, "the judge model failed: " + e.getMessage());
        }
        return read(answer.toString());
    }

    /** The judge's answer read as a score and a reason; an answer without a score in 0..1 fails, saying so. */
    Score read(String answer) {
        Double score = null;
        String reason = null;
        int open = answer.indexOf('{');
        int close = answer.lastIndexOf('}');
        if (open >= 0 && close > open) {
            try {
                JsonNode json = MAPPER.readTree(answer.substring(open, close + 1));
                if (json.path("score").isNumber()) {
                    score = json.get("score").asDouble();
                }
                if (json.path("reason").isString()) {
                    reason = json.get("reason").asString();
                }
            } catch (JacksonException e) {
                // not JSON after all: the loose reading below
            }
        }
        if (score == null) {
            Matcher loose = LOOSE_SCORE.matcher(answer);
            if (loose.find()) {
                score = Double.parseDouble(loose.group(1));
            }
        }
        if (score == null || !(score >= 0 && score <= 1)) {
            return Score.fail(NAME, "the judge's answer has no score in 0..1: " + cut(answer.strip(), 200));
        }
        String why = reason == null || reason.isBlank() ? cut(answer.strip(), 200) : reason.strip();
        boolean passed = score >= minScore;
        return new Score(NAME, passed, score, "score " + score + (passed ? " >= " : " < ") + minScore + ": " + why);
    }

    private static String cut(String text, int max) {
        return text.length() <= max ? text : text.substring(0, max) + "\u2026";
    }
}
