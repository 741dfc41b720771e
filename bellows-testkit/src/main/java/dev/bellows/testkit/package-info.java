/**
 * Test doubles of a model: {@link dev.bellows.testkit.MockLlmServer}, an OpenAI-compatible
 * HTTP endpoint on 127.0.0.1, and {@link dev.bellows.testkit.ScriptedProvider}, the same in
 * process; both replay a {@link dev.bellows.testkit.MockScript} of
 * {@link dev.bellows.testkit.MockTurn}s (format: docs/mock-server.md in the repository).
 */
package dev.bellows.testkit;
