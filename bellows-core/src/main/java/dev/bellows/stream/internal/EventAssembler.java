package dev.bellows.stream.internal;

import dev.bellows.event.StreamEvent;
import dev.bellows.event.ThinkingBlock;
import dev.bellows.stream.StreamListener;
import dev.bellows.stream.internal.TagScanner.BlockKind;
import dev.bellows.tool.DecodedToolCall;
import dev.bellows.tool.ToolCall;
import dev.bellows.tool.ToolCallError;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Turns what the {@link TagScanner} finds into stream events: applies the whitespace rules,
 * opens and closes message blocks, cuts content deltas, sniffs the tool name early, decodes
 * finished tool calls and keeps the aggregate for {@code complete}.
 *
 * <p>Text is appended once to the current block's buffer (it is needed whole for the
 * {@code *_end} event anyway); a delta is the part appended since the last flush, cut at the
 * end of every chunk and before a block ends. So one chunk gives at most one delta per block.
 */
public final class EventAssembler implements TagScanner.Sink {

    private static final String PROVIDER_THINKING_NAME = "thinking";

    private final StreamListener listener;
    /** The index of the chunk being processed; set by the processor. */
    public int chunk;

    // Message text and its whitespace rules.
    private final StringBuilder heldWhitespace = new StringBuilder();
    private boolean messageTextSeen;
    private boolean dropWhitespaceAfterBlock;
    private boolean messageOpen;
    private final StringBuilder message = new StringBuilder();
    private int messageFlushed;
    private final List<String> messageBlocks = new ArrayList<>();

    // The open thinking or tool block, if any.
    private Block block;
    private String blockName;
    private Map<String, String> blockAttributes;
    private final StringBuilder blockContent = new StringBuilder();
    private final StringBuilder blockHeldWhitespace = new StringBuilder();
    private int blockFlushed;
    private final ToolBodyFormat format;
    /** The format of the next tool block, when the scanner says it differs from the dialect's. */
    private ToolBodyFormat nextFormat;
    /** The format of the open tool block. */
    private ToolBodyFormat blockFormat;
    private final ParameterSchemas schemas;
    private NameSniffer sniffer;
    /** Whether the open tool block announced its name yet. */
    private boolean named;
    /** Whether tool blocks report their arguments as they complete ({@code argument-events}). */
    private final boolean argumentEvents;
    /** The open tool block's argument reader, or null without {@code argument-events}. */
    private ArgumentReader arguments;

    /** Provider-typed thinking that arrived while a tag-opened block was open. */
    private final StringBuilder deferredThinking = new StringBuilder();

    private final List<ThinkingBlock> thinking = new ArrayList<>();
    private final List<DecodedToolCall> toolCalls = new ArrayList<>();

    /** What kind of block is open: the scanner's two, plus thinking the provider typed. */
    private enum Block { TAG_THINKING, TOOL, PROVIDER_THINKING }

    public EventAssembler(StreamListener listener, ToolBodyFormat format, ParameterSchemas schemas, boolean argumentEvents) {
        this.listener = listener;
        this.format = format;
        this.schemas = schemas;
        this.argumentEvents = argumentEvents;
    }

    // ---- message text ------------------------------------------------------------------

    @Override
    public void messageText(CharSequence text, int from, int to) {
        int first = from;
        while (first < to && TagScanner.isWhitespace(text.charAt(first))) {
            first++;
        }
        boolean dropLeading = dropWhitespaceAfterBlock || !messageTextSeen;
        if (first == to) {
            if (!dropLeading) {
                heldWhitespace.append(text, from, to);
            }
            return;
        }
        int last = to - 1;
        while (TagScanner.isWhitespace(text.charAt(last))) {
            last--;
        }
        if (!dropLeading) {
            heldWhitespace.append(text, from, first);
        }
        if (!messageOpen) {
            messageOpen = true;
            emit(new StreamEvent.MessageStart(chunk));
        }
        message.append(heldWhitespace).append(text, first, last + 1);
        heldWhitespace.setLength(0);
        heldWhitespace.append(text, last + 1, to);
        messageTextSeen = true;
        dropWhitespaceAfterBlock = false;
    }

    private void endMessageBlock() {
        if (!messageOpen) {
            return;
        }
        flushMessage();
        String content = message.toString();
        messageBlocks.add(content);
        message.setLength(0);
        messageFlushed = 0;
        messageOpen = false;
        emit(new StreamEvent.MessageEnd(chunk, content));
    }

    /**
     * A native tool call arrived outside any tag block: like a tool tag, it ends the message
     * block and provider thinking, and whitespace after it is dropped. Its events are the caller's.
     */
    public void nativeToolCall() {
        endProviderThinking();
        endMessageBlock();
        heldWhitespace.setLength(0);
        dropWhitespaceAfterBlock = true;
    }

    // ---- blocks ------------------------------------------------------------------------

    @Override
    public void toolFormat(ToolBodyFormat format) {
        nextFormat = format;
    }

    @Override
    public void blockOpened(BlockKind kind, String name, Map<String, String> attributes) {
        openBlock(kind == BlockKind.THINKING ? Block.TAG_THINKING : Block.TOOL, name, attributes);
    }

    private void openBlock(Block kind, String name, Map<String, String> attributes) {
        endMessageBlock();
        block = kind;
        blockName = name;
        blockAttributes = attributes;
        if (kind == Block.TOOL) {
            blockFormat = nextFormat != null ? nextFormat : format;
            nextFormat = null;
            sniffer = blockFormat.newSniffer(attributes);
            named = false;
            arguments = argumentEvents ? blockFormat.newArgumentReader(attributes, schemas, this::argument) : null;
            emit(new StreamEvent.ToolCallStart(chunk, name, attributes));
            String known = blockFormat.nameFromAttributes(attributes);
            if (known != null) { // the delimiter itself named the tool (harmony's header)
                named = true;
                emit(new StreamEvent.ToolCallName(chunk, known));
            }
        } else {
            emit(new StreamEvent.ThinkingStart(chunk, name, attributes));
        }
    }

    @Override
    public void blockText(CharSequence text, int from, int to) {
        if (block == Block.TOOL && !sniffer.isDone()) {
            String toolName = sniffer.feed(text, from, to);
            if (toolName != null) {
                named = true;
                emit(new StreamEvent.ToolCallName(chunk, toolName));
            }
        }
        if (arguments != null && block == Block.TOOL) {
            arguments.feed(text, from, to);
        }
        int first = from;
        if (blockContent.isEmpty()) { // leading whitespace of a block is dropped
            while (first < to && TagScanner.isWhitespace(text.charAt(first))) {
                first++;
            }
        }
        int last = to - 1;
        while (last >= first && TagScanner.isWhitespace(text.charAt(last))) {
            last--;
        }
        if (last < first) { // whitespace only: held until text follows, dropped at the end
            blockHeldWhitespace.append(text, first, to);
            return;
        }
        blockContent.append(blockHeldWhitespace).append(text, first, last + 1);
        blockHeldWhitespace.setLength(0);
        blockHeldWhitespace.append(text, last + 1, to);
    }

    @Override
    public void delimiterAhead(char c) {
        if (block == Block.TOOL && !sniffer.isDone()) {
            String toolName = sniffer.endsBefore(c);
            if (toolName != null) {
                named = true;
                emit(new StreamEvent.ToolCallName(chunk, toolName));
            }
        }
    }

    @Override
    public void blockClosed() {
        endBlock(false);
    }

    @Override
    public void blockBroken(char breaking) {
        endBlock(false, breaking);
    }

    /** Ends the open block; {@code streamEnded} when the stream ended inside it. */
    private void endBlock(boolean streamEnded) {
        endBlock(streamEnded, -1);
    }

    /**
     * Ends the open block; {@code streamEnded} when the stream ended inside it; {@code breaking}
     * the character that broke it off, not part of it (-1 when it was closed).
     */
    private void endBlock(boolean streamEnded, int breaking) {
        String brokenText = breaking < 0 ? null : blockContent + blockHeldWhitespace.toString() + (char) breaking;
        flushBlock();
        String content = blockContent.toString();
        blockContent.setLength(0);
        blockHeldWhitespace.setLength(0);
        blockFlushed = 0;
        Block ended = block;
        block = null;
        if (ended == Block.TOOL) {
            if (arguments != null) {
                arguments.end(); // a value that only ends with the block is reported before its end
                arguments = null;
            }
            DecodedToolCall call = brokenText != null ? brokenCall(content, brokenText)
                    : blockFormat.decode(content, blockAttributes, schemas);
            if (!named && call instanceof ToolCall decoded && blockFormat.announcesNameAtEnd()) {
                emit(new StreamEvent.ToolCallName(chunk, decoded.toolName())); // the name ended with the block
            }
            if (streamEnded && call instanceof ToolCallError error) {
                // A stop sequence often swallows the close tag: a complete call still counts
                // (1.1), and otherwise the model learns both what is missing and what is wrong.
                String close = blockFormat.closeHint(blockName);
                call = new ToolCallError(content, "the tool call was never closed: the answer ended before "
                        + close + ", and what was written is not a complete call: " + error.error()
                        + "; write the whole call and close it with " + close);
            }
            toolCalls.add(call);
            emit(new StreamEvent.ToolCallEnd(chunk, content, call));
        } else {
            thinking.add(new ThinkingBlock(blockName, content, blockAttributes));
            emit(new StreamEvent.ThinkingEnd(chunk, content));
        }
        // Rule 3: whitespace held when the block began (it cannot change inside a block)
        // means the whitespace right after the block is dropped.
        dropWhitespaceAfterBlock = !heldWhitespace.isEmpty() || !messageTextSeen;
        if (ended != Block.PROVIDER_THINKING && !deferredThinking.isEmpty()) {
            emitDeferredThinking();
        }
    }

    /**
     * A call whose JSON broke off: the decoder, given its text with the character that broke it,
     * says where and why, as it says it for the tag form's malformed calls; that character and
     * what follows are message text, so the model learns that too.
     */
    private DecodedToolCall brokenCall(String content, String withBreaking) {
        DecodedToolCall probe = blockFormat.decode(withBreaking, blockAttributes, schemas);
        String why = probe instanceof ToolCallError error ? error.error() : "its JSON object is not complete";
        return new ToolCallError(content, "the tool call broke off before the end of its JSON object (the text from"
                + " there on was read as message text): " + why);
    }

    /** An argument of the open tool block is complete. */
    private void argument(String name, tools.jackson.databind.JsonNode value) {
        emit(new StreamEvent.ToolCallArgument(chunk, name, value));
    }

    // ---- provider-typed thinking -------------------------------------------------------

    /** A non-empty thinking chunk arrived outside any tag-opened block. */
    public void providerThinking(String text) {
        if (block != Block.PROVIDER_THINKING) {
            openBlock(Block.PROVIDER_THINKING, PROVIDER_THINKING_NAME, Map.of());
        }
        blockText(text, 0, text.length());
    }

    /**
     * A thinking chunk arrived inside a tag-opened block. Blocks never overlap, and putting
     * the provider's reasoning into a tool call would break the call, so it waits and becomes
     * its own thinking block as soon as the open block ends.
     */
    public void deferThinking(String text) {
        deferredThinking.append(text);
    }

    /** A message chunk arrived: a provider-typed thinking block ends here. */
    public void endProviderThinking() {
        if (block == Block.PROVIDER_THINKING) {
            endBlock(false);
        }
    }

    private void emitDeferredThinking() {
        String text = deferredThinking.toString();
        deferredThinking.setLength(0);
        openBlock(Block.PROVIDER_THINKING, PROVIDER_THINKING_NAME, Map.of());
        blockText(text, 0, text.length());
        endBlock(false);
    }

    // ---- chunk and stream ends ---------------------------------------------------------

    /** Emits the content delta of whatever block is open: called at the end of each chunk. */
    public void flush() {
        if (messageOpen) {
            flushMessage();
        } else if (block != null) {
            flushBlock();
        }
    }

    /** The stream ended; the scanner has already released any pending candidate. */
    public StreamEvent.Complete finish() {
        if (block != null) {
            endBlock(true);
        }
        if (!deferredThinking.isEmpty()) {
            emitDeferredThinking();
        }
        endMessageBlock(); // trailing held whitespace is dropped with it
        StreamEvent.Complete complete = new StreamEvent.Complete(
                chunk, String.join("", messageBlocks), thinking, toolCalls);
        emit(complete);
        return complete;
    }

    boolean inProviderThinking() {
        return block == Block.PROVIDER_THINKING;
    }

    private void flushMessage() {
        if (message.length() > messageFlushed) {
            String delta = message.substring(messageFlushed);
            messageFlushed = message.length();
            emit(new StreamEvent.MessageContent(chunk, delta));
        }
    }

    private void flushBlock() {
        if (blockContent.length() > blockFlushed) {
            String delta = blockContent.substring(blockFlushed);
            blockFlushed = blockContent.length();
            emit(block == Block.TOOL
                    ? new StreamEvent.ToolCallContent(chunk, delta)
                    : new StreamEvent.ThinkingContent(chunk, delta));
        }
    }

    private void emit(StreamEvent event) {
        listener.onEvent(event);
    }
}
