/**
 * The Anthropic Messages API as a streaming {@link dev.bellows.provider.Provider}:
 * {@link dev.bellows.anthropic.AnthropicProvider}. HTTP, Server-Sent Events, time-outs and the
 * classification of HTTP failures come from {@code dev.bellows.http}; this package builds the
 * request body and decodes Anthropic's stream events.
 */
package dev.bellows.anthropic;
