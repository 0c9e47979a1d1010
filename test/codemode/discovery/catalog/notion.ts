/** Notion: pages, databases, blocks, comments. */

import type { ToolRow } from "./define.js";

const page = "Page id";

export const NOTION: readonly ToolRow[] = [
  [
    "search",
    "Search Notion pages and databases by title and content.",
    { query: "Words to find", "filter?": "page|database: Only this kind" },
  ],
  ["get_page", "Get a Notion page's properties (title, status, dates, people).", { page_id: page }],
  ["get_page_content", "Read the blocks of a Notion page as Markdown.", { page_id: page }],
  [
    "create_page",
    "Create a Notion page under a parent page or as a row in a database.",
    {
      parent_id: "Parent page or database id",
      title: "Title",
      "content?": "Markdown body",
      "properties?": "JSON object of database properties",
    },
  ],
  [
    "update_page_properties",
    "Update the properties of a Notion page or database row, e.g. Status or Due.",
    { page_id: page, properties: "JSON object of properties" },
  ],
  [
    "append_blocks",
    "Append Markdown content as blocks to the end of a Notion page.",
    { page_id: page, content: "Markdown" },
  ],
  ["archive_page", "Archive (delete) a Notion page.", { page_id: page }],
  [
    "query_database",
    "Query a Notion database with filters and sorts, returning its rows.",
    { database_id: "Database id", "filter?": "JSON filter object", "sorts?": "JSON array of sorts" },
  ],
  [
    "get_database",
    "Get a Notion database's schema: property names, types and options.",
    { database_id: "Database id" },
  ],
  [
    "create_database",
    "Create an inline Notion database on a page with given properties.",
    { parent_page_id: page, title: "Title", properties: "JSON schema of properties" },
  ],
  ["list_comments", "List the comments on a Notion page or block.", { block_id: "Page or block id" }],
  ["add_comment", "Comment on a Notion page or reply in a discussion.", { page_id: page, text: "Comment" }],
  ["list_users", "List the members and guests of the Notion workspace.", {}],
  ["get_page_history", "List recent edits of a Notion page: who changed it and when.", { page_id: page }],
];
