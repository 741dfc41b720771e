// The official openai npm client against a Bellows server's /v1 whose runs fail: a whole
// (non-streaming) completion that fails after a while, and a streamed one. Prints one JSON object.
// Usage: NODE_PATH=<node_modules> node openai-errors.cjs BASE_URL
"use strict";
const mod = require("openai");
const OpenAI = mod.OpenAI || mod.default || mod;

const [baseURL] = process.argv.slice(2);
const messages = [{ role: "user", content: "Wait, then fail." }];

function caught(e) {
  return { status: e.status === undefined ? null : e.status, message: String(e.message),
    type: e.type === undefined ? null : e.type, code: e.code === undefined ? null : e.code };
}

(async () => {
  const out = {};
  const client = new OpenAI({ baseURL, apiKey: "none", maxRetries: 0 });
  try {
    const whole = await client.chat.completions.create({ model: "bellows", messages });
    out.whole = { returned: JSON.stringify(whole) };
  } catch (e) {
    out.whole = caught(e);
  }
  try {
    const stream = await client.chat.completions.create({ model: "bellows", stream: true, messages });
    let content = "";
    for await (const chunk of stream) {
      content += (chunk.choices && chunk.choices[0] && chunk.choices[0].delta.content) || "";
    }
    out.streamed = { returned: content };
  } catch (e) {
    out.streamed = caught(e);
  }
  process.stdout.write(JSON.stringify(out) + "\n");
})().catch((e) => {
  process.stdout.write(JSON.stringify({ crashed: String(e && e.stack || e) }) + "\n");
  process.exitCode = 1;
});
