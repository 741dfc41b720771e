// The Vercel AI SDK's side of the parser comparison in BENCHMARKS.md (run by compare.sh).
//
// Reads the transcript Bellows' ParserComparison wrote, and for each chunk size feeds it to
// extractReasoningMiddleware, lazily: a model whose stream pulls the next slice of the text
// only when the middleware asks for it, as a provider's network stream would. The same is
// timed once more without the middleware, so the middleware's own share is known too.
// Prints one JSON object on standard output.
import { readFileSync } from 'node:fs';
import { extractReasoningMiddleware, wrapLanguageModel } from 'ai';

const [, , transcriptFile, chunkSizesArg, secondsArg] = process.argv;
const text = readFileSync(transcriptFile, 'utf8');
const chunkSizes = chunkSizesArg.split(',').map(Number);
const seconds = Number(secondsArg ?? '5');

function model(chunkSize) {
  return {
    specificationVersion: 'v4',
    provider: 'bench',
    modelId: 'bench',
    supportedUrls: {},
    async doGenerate() {
      throw new Error('streaming only');
    },
    async doStream() {
      let position = 0;
      let started = false;
      let ended = false;
      const stream = new ReadableStream({
        pull(controller) {
          if (!started) {
            started = true;
            controller.enqueue({ type: 'text-start', id: 't' });
          } else if (position < text.length) {
            controller.enqueue({ type: 'text-delta', id: 't', delta: text.slice(position, position + chunkSize) });
            position += chunkSize;
          } else if (!ended) {
            ended = true;
            controller.enqueue({ type: 'text-end', id: 't' });
            controller.enqueue({ type: 'finish', finishReason: 'stop', usage: {} });
          } else {
            controller.close();
          }
        },
      }, { highWaterMark: 0 });
      return { stream };
    },
  };
}

async function consume(languageModel) {
  const { stream } = await languageModel.doStream({ prompt: [] });
  let reasoningChars = 0;
  let textChars = 0;
  for await (const part of stream) {
    if (part.type === 'reasoning-delta') reasoningChars += part.delta.length;
    else if (part.type === 'text-delta') textChars += part.delta.length;
  }
  return { reasoningChars, textChars };
}

async function measure(makeModel, chunkSize) {
  const chunks = Math.ceil(text.length / chunkSize);
  let check;
  for (const end = Date.now() + 2000; Date.now() < end;) check = await consume(makeModel()); // warm-up
  let runs = 0;
  const start = process.hrtime.bigint();
  const deadline = Date.now() + seconds * 1000;
  while (Date.now() < deadline) {
    await consume(makeModel());
    runs++;
  }
  const nanos = Number(process.hrtime.bigint() - start);
  return { nsPerChunk: nanos / (runs * chunks), runs, chunks, ...check };
}

const results = {};
for (const chunkSize of chunkSizes) {
  const withMiddleware = await measure(() => wrapLanguageModel({
    model: model(chunkSize),
    middleware: extractReasoningMiddleware({ tagName: 'thinking' }),
  }), chunkSize);
  if (withMiddleware.reasoningChars === 0) throw new Error('the middleware found no reasoning: nothing was parsed');
  const streamOnly = await measure(() => model(chunkSize), chunkSize);
  results[chunkSize] = { middleware: withMiddleware, streamOnly };
}
console.log(JSON.stringify({ node: process.version, text: text.length, results }));
