// The official openai npm client against a Bellows server's /v1: models, a streamed answer, a
// whole one, and a wrong key. Prints one JSON object.
// Usage: NODE_PATH=<node_modules> node openai-client.cjs BASE_URL KEY
"use strict";
const mod = require("openai");
const OpenAI = mod.OpenAI || mod.default || mod;

const [baseURL, apiKey] = process.argv.slice(2);

(async () => {
  const out = {};
  const client = new OpenAI({ baseURL, apiKey, maxRetries: 0 });
  out.models = (await client.models.list()).data.map((m) => m.id);
  const stream = await client.chat.completions.create({
    model: "bellows", stream: true,
    messages: [{ role: "user", content: "What is 40 + 2?" }],
  });
  out.streamed = "";
  out.reasoning = "";
  for await (const chunk of stream) {
    const choice = chunk.choices[0] || {};
    const delta = choice.delta || {};
    if (delta.content) out.streamed += delta.content;
    if (delta.reasoning_content) out.reasoning += delta.reasoning_content;
    if (choice.finish_reason) out.finish = choice.finish_reason;
  }
  const whole = await client.chat.completions.create({
    model: "bellows",
    messages: [{ role: "user", content: "What is 40 + 2?" }, { role: "assistant", content: "42" },
      { role: "user", content: "Plus one?" }],
  });
  out.whole = whole.choices[0].message.content;
  try {
    await new OpenAI({ baseURL, apiKey: "wrong", maxRetries: 0 }).models.list();
    out.wrongKey = "accepted";
  } catch (e) {
    out.wrongKey = e.status;
  }
  process.stdout.write(JSON.stringify(out) + "\n");
})().catch((e) => {
  process.stdout.write(JSON.stringify({ crashed: String(e && e.stack || e) }) + "\n");
  process.exitCode = 1;
});
