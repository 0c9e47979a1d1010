/** Words, stems and related words: how tool texts and queries become search terms. */

import { describe, expect, it } from "vitest";
import { identifierTerms, textTerms } from "../../../src/codemode/discovery/analyze.js";
import { splitNamespace } from "../../../src/codemode/discovery/namespace.js";
import { stem } from "../../../src/codemode/discovery/stem.js";
import { relatedTerms } from "../../../src/codemode/discovery/synonyms.js";
import { identifierWords, textWords } from "../../../src/codemode/discovery/words.js";

describe("splitting names and text into words", () => {
  it("splits snake_case, camelCase, acronyms, dashes, dots and namespaces", () => {
    expect(identifierWords("github__list_pull_requests")).toEqual(["github", "list", "pull", "requests"]);
    expect(identifierWords("listPullRequests")).toEqual(["list", "pull", "requests"]);
    expect(identifierWords("getHTTPStatus")).toEqual(["get", "http", "status"]);
    expect(identifierWords("crm.find-contact")).toEqual(["crm", "find", "contact"]);
    expect(identifierWords("oauth2Token")).toEqual(["oauth2", "token"]);
  });

  it("splits code-like words in sentences but keeps brand names whole", () => {
    expect(textWords("Call listEvents with time_min, not GitHub's PagerDuty.")).toEqual([
      "call",
      "list",
      "events",
      "with",
      "time",
      "min",
      "not",
      "github",
      "s",
      "pagerduty",
    ]);
  });

  it("cuts a name at its first namespace separator", () => {
    expect(splitNamespace("github__create_issue")).toEqual({ namespace: "github", local: "create_issue" });
    expect(splitNamespace("stripe.refunds.create")).toEqual({ namespace: "stripe", local: "refunds.create" });
    expect(splitNamespace("create_issue")).toEqual({ namespace: undefined, local: "create_issue" });
    expect(splitNamespace("__private")).toEqual({ namespace: undefined, local: "__private" });
  });
});

describe("stemming", () => {
  it("folds plurals", () => {
    expect(stem("meetings")).toBe("meeting");
    expect(stem("entries")).toBe(stem("entry"));
    expect(stem("branches")).toBe("branch");
    expect(stem("issues")).toBe(stem("issue"));
    expect(stem("statuses")).toBe(stem("status"));
    expect(stem("addresses")).toBe("address");
  });

  it("folds verb endings, undoubling consonants but not l, s or z", () => {
    expect(stem("refunding")).toBe("refund");
    expect(stem("created")).toBe(stem("create"));
    expect(stem("creating")).toBe(stem("creates"));
    expect(stem("shipped")).toBe("ship");
    expect(stem("running")).toBe("run");
    expect(stem("calling")).toBe("call");
    expect(stem("replied")).toBe(stem("replies"));
  });

  it("leaves nouns ending in -ing, short words and -ss/-us words alone", () => {
    expect(stem("meeting")).toBe("meeting");
    expect(stem("billing")).toBe("billing");
    expect(stem("status")).toBe("status");
    expect(stem("class")).toBe("class");
    expect(stem("add")).toBe("add");
    expect(stem("added")).toBe("add");
    expect(stem("need")).toBe("need");
  });
});

describe("search terms", () => {
  it("drops stop words and joins phrases that are one thing", () => {
    expect(textTerms("who is on call for payments")).toEqual(["oncall", "payment"]);
    expect(textTerms("find the pull request")).toEqual(["find", "pr"]);
    expect(identifierTerms("list_oncalls")).toEqual(["list", "oncall"]);
    expect(textTerms("look up an e-mail")).toEqual(["lookup", "email"]);
  });

  it("folds spellings of one thing on both sides", () => {
    expect(textTerms("repositories")).toEqual(identifierTerms("repo"));
    expect(textTerms("the cancelled orders")).toEqual(textTerms("cancel orders"));
  });

  it("relates the words models use to the words tools use", () => {
    expect(relatedTerms(stem("meetings"))).toContain(stem("event"));
    expect(relatedTerms(stem("appointment"))).toContain(stem("event"));
    expect(relatedTerms(stem("remove"))).toContain(stem("delete"));
    expect(relatedTerms(stem("find"))).toEqual(expect.arrayContaining([stem("search"), "get"]));
    expect(relatedTerms(stem("message"))).toEqual(expect.arrayContaining(["post", "send"]));
  });

  it("relates one way where the words are not interchangeable", () => {
    expect(relatedTerms("show")).toContain("get");
    expect(relatedTerms("get")).not.toContain("show");
  });
});
