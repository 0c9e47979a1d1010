// task: Which pull requests in acme/web and acme/api are ready for review, and how big are they?
// expect: ok
// returns: [{"number":110,"title":"Fix avatar upload crash","size":150,"reviewers":"tom"},{"number":210,"title":"Return 429 when rate limited","size":125,"reviewers":"sam, maria"}]
const lists = await Promise.all([
  tools.github__list_pull_requests({ repo: "acme/web", state: "open" }),
  tools.github__list_pull_requests({ repo: "acme/api", state: "open" }),
]);

const ready = lists
  .flat()
  .filter((pr) => !pr.draft)
  .map((pr) => ({
    number: pr.number,
    title: pr.title,
    size: pr.additions + pr.deletions,
    reviewers: pr.reviewers.join(", ") || "nobody yet",
  }));
return ready;
