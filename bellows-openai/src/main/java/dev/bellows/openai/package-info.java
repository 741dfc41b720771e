/**
 * The OpenAI-compatible streaming provider: {@link dev.bellows.openai.OpenAiProvider}, for
 * OpenAI, Ollama, vLLM, llama.cpp server, LM Studio and OpenRouter. What each server sends, and
 * how it is read, is documented in {@code bellows-openai/DIALECTS.md}.
 */
package dev.bellows.openai;
