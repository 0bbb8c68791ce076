import type { OutputChunk, OutputSink } from "./bot-output.js";

/** Lines gathered this long before one append, so a chatty bot is not one write per line. */
const GATHER_MS = 250;

/**
 * A sink that gathers an attempt's lines and sends them in order, one send at a time; `drain`
 * sends what is left and resolves when every send ended. A failed send is reported and its
 * lines are lost: output never fails the run.
 */
export function outputBuffer(send: (chunks: OutputChunk[]) => Promise<void>, onError: (err: unknown) => void): { sink: OutputSink; drain(): Promise<void> } {
  let pending: OutputChunk[] = [];
  let chain = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    const batch = pending;
    pending = [];
    if (batch.length > 0) chain = chain.then(() => send(batch)).catch(onError);
  };
  return {
    sink: (chunk) => {
      pending.push(chunk);
      timer ??= setTimeout(flush, GATHER_MS);
    },
    drain: () => {
      flush();
      return chain;
    },
  };
}
