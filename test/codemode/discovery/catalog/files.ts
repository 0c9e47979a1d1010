/** Files: the local workspace's file system. */

import type { ToolRow } from "./define.js";

const path = "Path relative to the workspace root";

export const FILES: readonly ToolRow[] = [
  [
    "read_file",
    "Read a text file from the workspace, optionally a range of lines.",
    { path, "start_line?": "int: First line", "end_line?": "int: Last line" },
  ],
  [
    "write_file",
    "Write text to a file in the workspace, creating or overwriting it.",
    { path, content: "New content" },
  ],
  ["append_file", "Append text to the end of a file.", { path, content: "Text to append" }],
  [
    "edit_file",
    "Replace one exact occurrence of a string in a file with another.",
    { path, old_text: "Text to find", new_text: "Replacement" },
  ],
  ["list_directory", "List the entries of a directory with their types and sizes.", { path }],
  ["make_directory", "Create a directory, with any missing parents.", { path }],
  [
    "delete_path",
    "Delete a file, or a directory with everything in it.",
    { path, "recursive?": "bool: Needed for non-empty directories" },
  ],
  ["move_path", "Move or rename a file or directory.", { from: "Current path", to: "New path" }],
  ["copy_path", "Copy a file or directory to a new path.", { from: "Source", to: "Destination" }],
  ["glob", "Find files whose paths match a glob pattern such as src/**/*.ts.", { pattern: "Glob pattern" }],
  [
    "grep",
    "Search file contents for a regular expression and return matching lines with paths and line numbers.",
    {
      pattern: "Regular expression",
      "path?": "Directory or file to search",
      "include?": "Glob of files to include",
    },
  ],
  ["get_file_info", "Get a file's size, modification time and permissions.", { path }],
  ["tail_file", "Read the last lines of a file, such as a log.", { path, "lines?": "int: How many lines" }],
  ["diff_files", "Show a unified diff between two files.", { a: "First file", b: "Second file" }],
];
