// task: Find the open issues in acme/web that nobody is assigned to and leave a comment asking for an owner.
// expect: ok
// returns: {"commented":[105,102]}
const { items } = await tools.github__search_issues({ repo: "acme/web", state: "open" });
const unassigned = items.filter((issue) => !issue.assignee);

const commented: number[] = [];
for (const issue of unassigned) {
  await tools.github__add_comment({
    repo: "acme/web",
    number: issue.number,
    body: `This issue has no owner yet (opened by @${issue.author}). Who can take it?`,
  });
  commented.push(issue.number);
}
return { commented };
