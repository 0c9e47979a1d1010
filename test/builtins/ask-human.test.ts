// ask_human and HumanChannel: every way a question ends (answer, cancel, close, cancellation, timeout),
// one consumer routing many sessions, options and multi-select, and the barrier.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { askHuman, HumanChannel, type HumanQuestion } from "../../src/entries/builtins.js";
import { Dispatcher, RunCancelled, type ToolResult, Toolset, tool, UserError } from "../../src/index.js";

/** Resolves with the next question the channel yields. */
async function nextQuestion(iterator: AsyncIterator<HumanQuestion>): Promise<HumanQuestion> {
  const { value, done } = await iterator.next();
  if (done) throw new Error("the channel ended");
  return value;
}

function setup(options: Parameters<typeof askHuman>[1] = {}) {
  const channel = new HumanChannel();
  const dispatcher = new Dispatcher(new Toolset([askHuman(channel, options)]));
  const ask = (args: Record<string, unknown>, dispatchOptions: Parameters<Dispatcher["dispatch"]>[1] = {}) =>
    dispatcher
      .dispatch(
        [{ id: `ask-${Math.random().toString(36).slice(2, 7)}`, name: "ask_human", arguments: args }],
        dispatchOptions,
      )
      .results()
      .then((results) => results[0] as ToolResult);
  return { channel, dispatcher, ask };
}

describe("ask_human: the tool", () => {
  it("is a barrier that is never retried, with question, options and multi_select", () => {
    const t = askHuman(new HumanChannel());
    expect(t.name).toBe("ask_human");
    expect(t.options).toMatchObject({ parallel: false, retries: 0, readOnly: true });
    expect(Object.keys(t.parameters.properties as object)).toEqual(["question", "options", "multi_select"]);
    expect(t.description).toContain("give 2 to 4 options");
    expect(t.description).toContain("It waits until the person answers.");
    expect(askHuman(new HumanChannel(), { timeout: 120_000 }).description).toContain("within 2 min");
    expect(() => askHuman({} as HumanChannel)).toThrow(UserError);
  });

  it.each([
    [{ question: "Pick", options: [{ label: "only one" }] }, "options: must have at least 2 items, got 1"],
    [
      { question: "Pick", options: ["a", "b", "c", "d", "e"].map((label) => ({ label })) },
      "options: must have at most 4 items, got 5",
    ],
    [
      { question: "Pick", options: [{ label: "same" }, { label: "same" }] },
      'options[1].label: repeats the label "same"; labels must be unique',
    ],
    [
      { question: "Pick", options: [{ label: "two\nlines" }, { label: "b" }] },
      "options[0].label: must be a single line",
    ],
    [
      { question: "Pick", options: [{ label: "a", description: "x\ny" }, { label: "b" }] },
      "options[0].description: must be a single line",
    ],
    // One-line labels smuggling a line break or reordered text past the check (red-team finding).
    [
      { question: "Pick", options: [{ label: "keep\u2028delete all" }, { label: "b" }] },
      "options[0].label: must be a single line of visible text",
    ],
    [
      { question: "Pick", options: [{ label: "keep\u0085delete all" }, { label: "b" }] },
      "options[0].label: must be a single line of visible text",
    ],
    [
      { question: "Pick", options: [{ label: "a" }, { label: "b", description: "p\u2029q" }] },
      "options[1].description: must be a single line of visible text",
    ],
    [
      { question: "Pick", options: [{ label: "yes \u202Eon\u202C" }, { label: "b" }] },
      "options[0].label: must be a single line of visible text",
    ],
    [{ question: "Pick", multi_select: true }, "multi_select: needs options to choose from"],
    [{ question: "  " }, "question: must be at least 1 character"],
  ])("refuses %j", async (args, message) => {
    const { ask } = setup();
    const result = await ask(args);
    expect(result.error?.kind).toBe("invalid_arguments");
    expect(result.output).toContain(message);
  });
});

describe("HumanChannel", () => {
  it("yields the question with its session, run and call ids; the answer is what the model reads", async () => {
    const { channel, ask } = setup();
    const questions = channel.questions();
    const pending = ask({ question: "Which region?" }, { session: "alice", runId: "run-1" });
    const q = await nextQuestion(questions);
    expect(q).toMatchObject({
      question: "Which region?",
      options: [],
      multiSelect: false,
      sessionId: "alice",
      runId: "run-1",
    });
    expect(q.callId).toMatch(/^ask-/);
    expect(channel.pending.map((p) => p.id)).toEqual([q.id]);
    expect(channel.answer(q.id, "eu-west-1")).toBe(true);
    const result = await pending;
    expect(result.ok).toBe(true);
    expect(result.output).toBe("eu-west-1");
    expect(q.signal.aborted).toBe(true);
    expect(channel.pending).toEqual([]);
    expect(channel.answer(q.id, "again")).toBe(false);
  });

  it("carries 2-4 options; any text is still an answer; multi-select answers are labels joined by newlines", async () => {
    const { channel, ask } = setup();
    const questions = channel.questions();
    const options = [{ label: "Kyoto", description: "temples" }, { label: "Osaka" }, { label: "Nara" }];
    const multi = ask({ question: "Which cities?", options, multi_select: true });
    const q1 = await nextQuestion(questions);
    expect(q1.options).toEqual(options);
    expect(q1.multiSelect).toBe(true);
    channel.answer(q1.id, ["Kyoto", "Osaka"]);
    expect((await multi).output).toBe("Kyoto\nOsaka");
    const free = ask({ question: "Which city?", options });
    const q2 = await nextQuestion(questions);
    channel.answer(q2.id, "Somewhere else entirely");
    expect((await free).output).toBe("Somewhere else entirely");
    const empty = ask({ question: "Anything?" });
    channel.answer((await nextQuestion(questions)).id, "");
    expect((await empty).output).toBe("(The person answered with an empty message.)");
  });

  it("cancel() ends one question with a tool error the model reads", async () => {
    const { channel, ask } = setup();
    const questions = channel.questions();
    const pending = ask({ question: "Deploy now?" });
    const q = await nextQuestion(questions);
    expect(channel.cancel(q.id, "the operator is away")).toBe(true);
    const result = await pending;
    expect(result.ok).toBe(false);
    expect(result.output).toBe(
      "Tool error: The human cancelled the question: the operator is away\nHint: Go on without this answer, or ask again differently if you still need it.",
    );
    expect(channel.cancel(q.id)).toBe(false);
  });

  it("close() cancels every pending question, ends the iterator and refuses later questions", async () => {
    const channel = new HumanChannel();
    const d = new Dispatcher(new Toolset([askHuman(channel)]));
    const a = d
      .dispatch([{ id: "a", name: "ask_human", arguments: { question: "A?" } }], { session: "s1" })
      .results();
    const b = d
      .dispatch([{ id: "b", name: "ask_human", arguments: { question: "B?" } }], { session: "s2" })
      .results();
    const seen: string[] = [];
    const consumer = (async () => {
      for await (const q of channel.questions()) {
        seen.push(q.question);
        if (seen.length === 2) channel.close("shutting down");
      }
      return "ended";
    })();
    expect(await consumer).toBe("ended");
    expect(seen.sort()).toEqual(["A?", "B?"]);
    for (const [result] of [await a, await b]) {
      expect(result!.output).toContain("No answer: the channel to the human was closed (shutting down).");
    }
    expect(channel.closed).toBe(true);
    const [later] = await d
      .dispatch([{ id: "c", name: "ask_human", arguments: { question: "C?" } }])
      .results();
    expect(later!.output).toContain(
      "No one can answer questions now: the channel to the human is closed (shutting down).",
    );
    expect((await channel.questions().next()).done).toBe(true);
  });

  it("withdraws the question when the dispatch is cancelled", async () => {
    const { channel, ask } = setup();
    const questions = channel.questions();
    const controller = new AbortController();
    const pending = ask({ question: "Still there?" }, { signal: controller.signal });
    const q = await nextQuestion(questions);
    controller.abort(new RunCancelled("the user left"));
    await expect(pending).rejects.toThrow("the user left");
    expect(q.signal.aborted).toBe(true);
    expect(channel.pending).toEqual([]);
    expect(channel.answer(q.id, "too late")).toBe(false);
  });

  it("withdraws the question when the tool's timeout runs out", async () => {
    const { channel, ask } = setup({ timeout: 50 });
    const questions = channel.questions();
    const pending = ask({ question: "Quick?" });
    const q = await nextQuestion(questions);
    const result = await pending;
    expect(result.error?.kind).toBe("timeout");
    expect(result.output).toContain("ask_human timed out after 50 ms");
    expect(q.signal.aborted).toBe(true);
    expect(channel.pending).toEqual([]);
  });

  it("has one consumer at a time, and skips questions settled before they were read", async () => {
    const channel = new HumanChannel();
    const first = channel.questions();
    expect(() => channel.questions()).toThrow(UserError);
    const controller = new AbortController();
    const withdrawn = channel.ask({ question: "gone" }, { signal: controller.signal });
    controller.abort(new Error("withdrawn"));
    await expect(withdrawn).rejects.toThrow("withdrawn");
    const kept = channel.ask({ question: "kept" });
    const q = await nextQuestion(first);
    expect(q.question).toBe("kept");
    channel.answer(q.id, "yes");
    expect(await kept).toBe("yes");
    await first.return?.();
    const second = channel.questions();
    const again = channel.ask({ question: "again" });
    const q2 = await nextQuestion(second);
    channel.answer(q2.id, "ok");
    expect(await again).toBe("ok");
  });

  it("lets one consumer route questions from many sessions by their ids", async () => {
    const channel = new HumanChannel();
    const d = new Dispatcher(new Toolset([askHuman(channel)]));
    const replies: Record<string, string> = {
      alice: "Alice's answer",
      bob: "Bob's answer",
      carol: "Carol's answer",
    };
    const consumer = (async () => {
      let answered = 0;
      for await (const q of channel.questions()) {
        channel.answer(q.id, replies[q.sessionId!]!);
        if (++answered === 3) break;
      }
    })();
    const results = await Promise.all(
      Object.keys(replies).map((session) =>
        d
          .dispatch([{ id: session, name: "ask_human", arguments: { question: `Hi ${session}` } }], {
            session,
          })
          .results(),
      ),
    );
    await consumer;
    expect(results.map(([r]) => r!.output)).toEqual(Object.values(replies));
  });

  it("is a barrier: questions of one turn are asked one at a time, other calls finish first", async () => {
    const channel = new HumanChannel();
    const order: string[] = [];
    const lookup = tool({
      name: "lookup",
      description: "Look something up.",
      input: z.object({}),
      run: async () => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        order.push("lookup done");
        return "found";
      },
    });
    const d = new Dispatcher(new Toolset([lookup, askHuman(channel)]));
    const consumer = (async () => {
      for await (const q of channel.questions()) {
        order.push(`asked ${q.question} (pending ${channel.pending.length})`);
        await new Promise((resolve) => setTimeout(resolve, 10));
        channel.answer(q.id, `answer to ${q.question}`);
        if (q.question === "second") break;
      }
    })();
    const results = await d
      .dispatch([
        { id: "1", name: "lookup", arguments: {} },
        { id: "2", name: "ask_human", arguments: { question: "first" } },
        { id: "3", name: "ask_human", arguments: { question: "second" } },
      ])
      .results();
    await consumer;
    expect(order).toEqual(["lookup done", "asked first (pending 1)", "asked second (pending 1)"]);
    expect(results.map((r) => r.output).sort()).toEqual(["answer to first", "answer to second", "found"]);
  });

  it("keeps one pending question per run even when asked concurrently from outside a barrier", async () => {
    const channel = new HumanChannel();
    const maxPending: number[] = [];
    const consumer = (async () => {
      let n = 0;
      for await (const q of channel.questions()) {
        maxPending.push(channel.pending.length);
        await new Promise((resolve) => setTimeout(resolve, 5));
        channel.answer(q.id, q.question.toUpperCase());
        if (++n === 3) break;
      }
    })();
    const answers = await Promise.all(
      ["a", "b", "c"].map((question) => channel.ask({ question }, { runId: "same-run" })),
    );
    await consumer;
    expect(answers).toEqual(["A", "B", "C"]);
    expect(maxPending).toEqual([1, 1, 1]);
  });

  it("a question cancelled while it waits its turn does not let a later one of the run past the pending one", async () => {
    const channel = new HumanChannel();
    const first = channel.ask({ question: "one" }, { runId: "run" });
    const waiting = new AbortController();
    const second = channel.ask({ question: "two" }, { runId: "run", signal: waiting.signal });
    const third = channel.ask({ question: "three" }, { runId: "run" });
    await new Promise((resolve) => setTimeout(resolve, 5));
    waiting.abort(new Error("gave up"));
    await expect(second).rejects.toThrow("gave up");
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(channel.pending.map((q) => q.question)).toEqual(["one"]);
    channel.answer(channel.pending[0]!.id, "1");
    expect(await first).toBe("1");
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(channel.pending.map((q) => q.question)).toEqual(["three"]);
    channel.answer(channel.pending[0]!.id, "3");
    expect(await third).toBe("3");
  });

  it("refuses an answer that is not text", () => {
    expect(() => new HumanChannel().answer("x", 42 as never)).toThrow(UserError);
  });
});
