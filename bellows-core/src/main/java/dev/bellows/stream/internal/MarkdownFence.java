package dev.bellows.stream.internal;


/**
 * Finds the call inside an optional Markdown fence (models like to wrap a tool call in
 * {@code ```json ... ```}), exactly as the stream contract words it: if the content
 * starts with three backticks, its first line is dropped; if what remains ends (after
 * trimming) with three backticks, they are dropped; the rest is trimmed again.
 *
 * <p>It works on index ranges rather than copies so that error positions can still be
 * given in the content as the model wrote it.
 */
final class MarkdownFence {

    private static final String FENCE = "```";

    private MarkdownFence() {
    }

    /**
     * The range of {@code content} holding the call, given the range {@code [start, end)}
     * of the already trimmed content. The closing fence is only looked for when there was
     * an opening one: the contract's "what remains" is what the dropped first line leaves,
     * and a JSON or XML call never legitimately ends with backticks anyway.
     *
     * @return {@code {start, end}} of the call; empty when nothing but a fence line is left
     */
    static int[] strip(String content, int start, int end) {
        if (!content.startsWith(FENCE, start)) {
            return new int[] {start, end};
        }
        int lineEnd = start;
        while (lineEnd < end && content.charAt(lineEnd) != '\n' && content.charAt(lineEnd) != '\r') {
            lineEnd++;
        }
        int from = ContentText.skipWhitespace(content, lineEnd, end);
        int to = ContentText.trimEnd(content, from, end);
        if (to - from >= FENCE.length() && content.startsWith(FENCE, to - FENCE.length())) {
            to = ContentText.trimEnd(content, from, to - FENCE.length());
        }
        return new int[] {from, to};
    }
}
