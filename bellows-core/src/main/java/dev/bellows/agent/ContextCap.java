package dev.bellows.agent;

import dev.bellows.memory.ConversationMemory;
import dev.bellows.provider.Message;
import dev.bellows.provider.Role;
import java.util.ArrayList;
import java.util.List;

/**
 * The memory's token limit as a hard cap on a request. {@link History} leaves out whole old
 * turns, but the newest turn is always sent, and one turn alone can be larger than the limit
 * (a huge answer, a huge observation). Here such a request is brought under the limit by
 * cutting its largest messages in their middle, their beginning and end kept, with a note
 * saying how much was left out: never sent whole. The system message is never cut (a limit
 * below it is refused where the limit is set).
 */
final class ContextCap {

    private ContextCap() {
    }

    /** {@code messages} within the memory's token limit; the same list when they fit or there is none. */
    static List<Message> fit(List<Message> messages, ConversationMemory memory) {
        int max = memory.maxTokens();
        if (max == Integer.MAX_VALUE) {
            return messages;
        }
        long[] tokens = new long[messages.size()];
        long total = 0;
        for (int i = 0; i < tokens.length; i++) {
            tokens[i] = memory.tokenCount(messages.get(i));
            total += tokens[i];
        }
        if (total <= max) {
            return messages;
        }
        List<Message> fitted = new ArrayList<>(messages);
        for (int round = 0; round < 4 * messages.size() + 8 && total > max; round++) {
            int largest = -1;
            for (int i = 0; i < tokens.length; i++) {
                if (fitted.get(i).role() != Role.SYSTEM && fitted.get(i).content().length() > 200
                        && (largest < 0 || tokens[i] > tokens[largest])) {
                    largest = i;
                }
            }
            if (largest < 0) {
                break; // nothing left to cut: the provider will say the request is too large
            }
            Message message = fitted.get(largest);
            long excess = total - max;
            long keepTokens = Math.max(40, tokens[largest] - excess - 60); // 60: the note and a margin
            Message cut = cutMiddle(message, keepTokens, tokens[largest]);
            long now = memory.tokenCount(cut);
            if (now >= tokens[largest]) {
                break;
            }
            total += now - tokens[largest];
            tokens[largest] = now;
            fitted.set(largest, cut);
        }
        return fitted;
    }

    /** {@code message} with its content cut in the middle to about {@code keepTokens} of its {@code tokens}. */
    private static Message cutMiddle(Message message, long keepTokens, long tokens) {
        String content = message.content();
        int keep = (int) Math.max(0, Math.min(content.length() - 1L, content.length() * keepTokens / Math.max(1, tokens)));
        int head = boundary(content, keep / 2);
        int tail = boundary(content, content.length() - (keep - keep / 2));
        String note = String.format("%n[... %,d of %,d characters cut here to keep the request within the context"
                + " limit ...]%n", tail - head, content.length());
        String text = content.substring(0, head) + note + content.substring(tail);
        return new Message(message.role(), text, message.toolCalls(), message.toolCallId(), message.thinking());
    }

    private static int boundary(String text, int at) {
        return at > 0 && at < text.length() && Character.isLowSurrogate(text.charAt(at)) ? at - 1 : at;
    }
}
