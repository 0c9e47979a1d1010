/** Drive: files, folders, sharing, documents and spreadsheets. */

import type { ToolRow } from "./define.js";

const fileId = "File id";

export const DRIVE: readonly ToolRow[] = [
  [
    "search_files",
    "Search Drive files by name, full text, type, owner or modification date.",
    {
      query: "Words to find, or a Drive query like \"mimeType = 'application/pdf'\"",
      "folder_id?": "Only inside this folder",
    },
  ],
  [
    "list_folder",
    "List the files and folders inside a Drive folder.",
    { folder_id: "Folder id; 'root' for My Drive" },
  ],
  [
    "get_file_metadata",
    "Get a Drive file's name, type, size, owner, sharing settings and last modifier.",
    { file_id: fileId },
  ],
  ["read_document", "Read the text content of a Google Doc, exported as Markdown.", { file_id: fileId }],
  [
    "create_document",
    "Create a new Google Doc with a title and initial Markdown content.",
    {
      title: "Document title",
      "content?": "Initial content in Markdown",
      "folder_id?": "Folder to create it in",
    },
  ],
  [
    "append_to_document",
    "Append Markdown text to the end of a Google Doc.",
    { file_id: fileId, content: "Markdown to append" },
  ],
  [
    "read_spreadsheet",
    "Read cell values from a range of a Google Sheets spreadsheet.",
    { file_id: fileId, range: "A1 range, e.g. 'Sheet1!A1:F50'" },
  ],
  [
    "update_spreadsheet",
    "Write values into a range of a spreadsheet.",
    { file_id: fileId, range: "A1 range", values: "JSON array of rows" },
  ],
  [
    "append_spreadsheet_rows",
    "Append rows after the last row with data in a sheet.",
    { file_id: fileId, sheet: "Sheet name", rows: "JSON array of rows" },
  ],
  [
    "create_spreadsheet",
    "Create a new Google Sheets spreadsheet with named sheets.",
    { title: "Spreadsheet title", "sheets?": "string[]: Sheet names" },
  ],
  [
    "upload_file",
    "Upload a file to Drive from text or base64 content.",
    {
      name: "File name",
      content: "Content (text or base64)",
      "mime_type?": "MIME type",
      "folder_id?": "Destination folder",
    },
  ],
  [
    "download_file",
    "Download a Drive file's content; Google Docs are exported to the chosen format.",
    { file_id: fileId, "export_format?": "pdf|docx|txt|csv|xlsx: Export format for Google files" },
  ],
  ["create_folder", "Create a folder in Drive.", { name: "Folder name", "parent_id?": "Parent folder id" }],
  [
    "move_file",
    "Move a file to another Drive folder.",
    { file_id: fileId, folder_id: "Destination folder id" },
  ],
  [
    "copy_file",
    "Make a copy of a Drive file, optionally with a new name.",
    { file_id: fileId, "name?": "Name of the copy" },
  ],
  ["rename_file", "Rename a Drive file or folder.", { file_id: fileId, name: "New name" }],
  ["delete_file", "Move a Drive file or folder to the trash.", { file_id: fileId }],
  [
    "share_file",
    "Share a Drive file with a person, group or domain as viewer, commenter or editor.",
    { file_id: fileId, email: "Who to share with", role: "reader|commenter|writer: Access" },
  ],
  ["list_permissions", "List who has access to a Drive file and with which role.", { file_id: fileId }],
  ["list_comments", "List the comments and suggestions on a Google Doc.", { file_id: fileId }],
  ["list_recent_files", "List the files you opened or edited most recently.", { "limit?": "int: How many" }],
];
