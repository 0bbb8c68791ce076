import { describe, expect, it } from "vitest";
import { WriteLock } from "./write-lock.js";

/** The event loop's side and the writer thread's side of one lock (the same cells, as the threads share them). */
function sides() {
  const service = new WriteLock();
  return { service, writer: new WriteLock(service.buffer, true) };
}

const turn = () => new Promise((resolve) => setTimeout(resolve, 5));

describe("the write lock two connections of a file store take turns with", () => {
  it("holds off every other side until released", async () => {
    const { service, writer } = sides();
    const order: string[] = [];
    await writer.acquire();
    const waiting = service.acquire().then(() => order.push("service"));
    await turn();
    expect(order).toEqual([]);
    order.push("writer done");
    writer.release();
    await waiting;
    expect(order).toEqual(["writer done", "service"]);
    service.release();
  });

  it("lets the event loop's waiting turns go before the writer thread's", async () => {
    const { service, writer } = sides();
    const order: string[] = [];
    await service.acquire();
    // The writer asks first, the event loop's second turn after it: the event loop still goes first.
    const writerTurn = writer.acquire().then(() => {
      order.push("writer");
      writer.release();
    });
    await turn();
    const serviceTurn = service.acquire().then(() => {
      order.push("service");
      service.release();
    });
    await turn();
    service.release();
    await Promise.all([writerTurn, serviceTurn]);
    expect(order).toEqual(["service", "writer"]);
  });

  it("hands the lock to one waiter at a time", async () => {
    const { service, writer } = sides();
    let holders = 0;
    let most = 0;
    const hold = async (lock: WriteLock) => {
      await lock.acquire();
      most = Math.max(most, ++holders);
      await turn();
      holders--;
      lock.release();
    };
    await Promise.all([hold(writer), hold(service), hold(writer), hold(service), hold(service)]);
    expect(most).toBe(1);
  });

  it("ends the turn of a writer thread that stopped while holding it, and only then", async () => {
    const { service, writer } = sides();
    await service.acquire();
    // The event loop's own turn is not the writer's: it stays held.
    service.releaseStoppedWriter();
    let writerHas = false;
    const writerTurn = writer.acquire().then(() => (writerHas = true));
    await turn();
    expect(writerHas).toBe(false);
    service.release();
    await writerTurn;
    // The thread stops here, holding its turn: the event loop's next turn must not wait forever.
    service.releaseStoppedWriter();
    await service.acquire();
    service.release();
  });
});
