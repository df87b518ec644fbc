// An MCP server that dies as it starts, as a server with a missing dependency does.
process.stderr.write("crash.mjs: cannot find the configuration it needs; exiting\n");
process.exit(3);
