package dev.bellows.memory;

import dev.bellows.provider.Message;
import dev.bellows.provider.Role;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The conversation so far, kept as whole turns, and the part of it that fits the model's
 * context window.
 *
 * <p>A turn is the unit that is kept or dropped: the user's task ({@code [user]}), or one
 * iteration of the loop ({@code [assistant answer with its tool calls, user observation]}).
 * Because a tool call and its observation are one turn, pruning can never leave the model a
 * call without its result, or a result without its call. The system message is not part of
 * memory: {@code PromptBuilder} writes it into every request, so a turn holding one is refused.
 *
 * <pre>{@code
 * ConversationMemory memory = ConversationMemory.builder().maxMessages(100).maxTokens(60_000).build();
 * memory.addTurn(List.of(Message.user(task)));
 * // each iteration: reserve room for the system message, the current turn and the answer
 * List<Message> history = memory.messagesWithin(systemTokens + turnTokens + 4_000);
 * ...
 * memory.addTurn(List.of(Message.assistant(answer), Message.user(observation)));
 * }</pre>
 *
 * <h2>Limits</h2>
 * The store keeps every turn; the limits only decide what {@link #messagesWithin} gives back:
 * the newest whole turns whose messages number at most {@code maxMessages} and whose tokens,
 * plus the tokens reserved for the rest of the request, are at most {@code maxTokens}. The
 * newest turn is always given back, even when it alone breaks a limit: the model must see the
 * latest message, and a provider that cannot take it will say so.
 *
 * <h2>Tokens</h2>
 * A message costs its content's count by the {@link TokenCounter} plus
 * {@value #MESSAGE_OVERHEAD_TOKENS} tokens for its role and the chat format's separators
 * (what OpenAI's chat format spends per message). Counts are cached per turn; the store is
 * taken to be append-only between {@link #clear()}s.
 *
 * <p>All methods are thread-safe.
 */
public final class ConversationMemory {

    /** Tokens a message costs besides its content: role and separators of the chat format. */
    public static final int MESSAGE_OVERHEAD_TOKENS = 4;

    private final int maxMessages;
    private final int maxTokens;
    private final TokenCounter tokenCounter;
    private final MemoryStore store;

    private final Object lock = new Object();
    /** The token count of the store's turn at each position; guarded by {@link #lock}. */
    private final List<Integer> turnTokens = new ArrayList<>();

    private ConversationMemory(Builder builder) {
        this.maxMessages = builder.maxMessages;
        this.maxTokens = builder.maxTokens;
        this.tokenCounter = builder.tokenCounter;
        this.store = builder.store;
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Adds a turn after the others. It is kept or dropped whole.
     *
     * @param messages the turn's messages, in order: at least one, none of them a system message
     * @throws IllegalArgumentException for an empty turn or one holding a system message
     */
    public void addTurn(List<Message> messages) {
        Objects.requireNonNull(messages, "messages");
        if (messages.isEmpty()) {
            throw new IllegalArgumentException("a turn needs at least one message");
        }
        for (Message message : messages) {
            Objects.requireNonNull(message, "a message of the turn is null");
            if (message.role() == Role.SYSTEM) {
                throw new IllegalArgumentException("a turn cannot hold a system message: PromptBuilder writes"
                        + " the system message into every request, so memory keeps only the conversation");
            }
        }
        List<Message> turn = List.copyOf(messages);
        synchronized (lock) {
            store.append(turn);
        }
    }

    /** Every stored message, oldest first, whatever the limits. */
    public List<Message> messages() {
        return store.turns().stream().flatMap(List::stream).toList();
    }

    /** The stored turns, oldest first, each whole. */
    public List<List<Message>> turns() {
        return store.turns();
    }

    /**
     * The newest whole turns that fit the limits, oldest first: turns are dropped from the
     * oldest until the messages number at most {@code maxMessages} and their tokens plus
     * {@code reservedTokens} are at most {@code maxTokens}. The newest turn is always kept.
     *
     * @param reservedTokens tokens the rest of the request needs (system message, current turn,
     *                       room for the answer); 0 or more
     * @throws IllegalArgumentException for a negative reservation
     */
    public List<Message> messagesWithin(int reservedTokens) {
        return turnsWithin(reservedTokens).stream().flatMap(List::stream).toList();
    }

    /**
     * The same selection as {@link #messagesWithin}, as whole turns: for a caller that must
     * know where the kept turns begin (the agent loops, which keep the run's task in sight).
     *
     * @param reservedTokens tokens the rest of the request needs; 0 or more
     * @throws IllegalArgumentException for a negative reservation
     */
    public List<List<Message>> turnsWithin(int reservedTokens) {
        if (reservedTokens < 0) {
            throw new IllegalArgumentException("reservedTokens must be 0 or more, not " + reservedTokens);
        }
        List<List<Message>> turns = store.turns();
        if (maxMessages == Integer.MAX_VALUE && maxTokens == Integer.MAX_VALUE) {
            // No limit (the default): every turn is kept, nothing to count. The agent loops ask
            // this before every model call. (copyOf keeps a store's immutable snapshot as it is.)
            return List.copyOf(turns);
        }
        List<Integer> tokens = tokensPerTurn(turns);
        int first = turns.size();
        long messageCount = 0;
        long tokenCount = reservedTokens;
        while (first > 0) {
            List<Message> turn = turns.get(first - 1);
            long nextMessages = messageCount + turn.size();
            long nextTokens = tokenCount + tokens.get(first - 1);
            boolean newest = first == turns.size();
            if (!newest && (nextMessages > maxMessages || nextTokens > maxTokens)) {
                break;
            }
            messageCount = nextMessages;
            tokenCount = nextTokens;
            first--;
        }
        return List.copyOf(turns.subList(first, turns.size()));
    }

    /** The tokens of every stored message, as {@link #messagesWithin} counts them. */
    public int tokenCount() {
        long total = 0;
        for (int tokens : tokensPerTurn(store.turns())) {
            total += tokens;
        }
        return (int) Math.min(total, Integer.MAX_VALUE);
    }

    /**
     * The tokens one message costs, as this memory counts them: its content by the
     * {@link TokenCounter} plus {@value #MESSAGE_OVERHEAD_TOKENS}. Use it to work out the
     * reservation for {@link #messagesWithin} (the system message, the current turn).
     */
    public int tokenCount(Message message) {
        Objects.requireNonNull(message, "message");
        int count = tokenCounter.count(message.content());
        if (count < 0) {
            throw new IllegalStateException("token counter " + tokenCounter + " gave a negative count: " + count);
        }
        return (int) Math.min((long) count + MESSAGE_OVERHEAD_TOKENS, Integer.MAX_VALUE);
    }

    /** Forgets every turn (the store is cleared too). */
    public void clear() {
        synchronized (lock) {
            store.clear();
            turnTokens.clear();
        }
    }

    /** Where the turns are kept: an {@link InMemoryMemoryStore} unless the builder was given one. */
    public MemoryStore store() {
        return store;
    }

    /** How this memory counts tokens. */
    public TokenCounter tokenCounter() {
        return tokenCounter;
    }

    /** The message limit; {@link Integer#MAX_VALUE} when unlimited. */
    public int maxMessages() {
        return maxMessages;
    }

    /** The token limit; {@link Integer#MAX_VALUE} when unlimited. */
    public int maxTokens() {
        return maxTokens;
    }

    private List<Integer> tokensPerTurn(List<List<Message>> turns) {
        synchronized (lock) {
            if (turnTokens.size() > turns.size()) {
                // The store was cleared or replaced behind our back: count again.
                turnTokens.clear();
            }
            for (int i = turnTokens.size(); i < turns.size(); i++) {
                long sum = 0;
                for (Message message : turns.get(i)) {
                    sum += tokenCount(message);
                }
                turnTokens.add((int) Math.min(sum, Integer.MAX_VALUE));
            }
            return List.copyOf(turnTokens.subList(0, turns.size()));
        }
    }

    @Override
    public String toString() {
        return "ConversationMemory[maxMessages=" + limit(maxMessages) + ", maxTokens=" + limit(maxTokens)
                + ", store=" + store + "]";
    }

    private static String limit(int value) {
        return value == Integer.MAX_VALUE ? "unlimited" : Integer.toString(value);
    }

    /** Builds a {@link ConversationMemory}; every setter replaces what was set before. */
    public static final class Builder {
        private int maxMessages = Integer.MAX_VALUE;
        private int maxTokens = Integer.MAX_VALUE;
        private TokenCounter tokenCounter = new EstimatingTokenCounter();
        private MemoryStore store;

        private Builder() {
        }

        /** At most this many messages are sent (unlimited by default); at least 1. */
        public Builder maxMessages(int maxMessages) {
            if (maxMessages < 1) {
                throw new IllegalArgumentException("maxMessages must be at least 1, not " + maxMessages);
            }
            this.maxMessages = maxMessages;
            return this;
        }

        /** At most this many tokens, history plus reservation (unlimited by default); at least 1. */
        public Builder maxTokens(int maxTokens) {
            if (maxTokens < 1) {
                throw new IllegalArgumentException("maxTokens must be at least 1, not " + maxTokens);
            }
            this.maxTokens = maxTokens;
            return this;
        }

        /** How tokens are counted; an {@link EstimatingTokenCounter} by default. */
        public Builder tokenCounter(TokenCounter tokenCounter) {
            this.tokenCounter = Objects.requireNonNull(tokenCounter, "tokenCounter");
            return this;
        }

        /** Where turns are kept; a new {@link InMemoryMemoryStore} by default. */
        public Builder store(MemoryStore store) {
            this.store = Objects.requireNonNull(store, "store");
            return this;
        }

        public ConversationMemory build() {
            if (store == null) {
                return new ConversationMemory(copyWith(new InMemoryMemoryStore()));
            }
            return new ConversationMemory(this);
        }

        private Builder copyWith(MemoryStore newStore) {
            Builder copy = new Builder();
            copy.maxMessages = maxMessages;
            copy.maxTokens = maxTokens;
            copy.tokenCounter = tokenCounter;
            copy.store = newStore;
            return copy;
        }
    }
}
