// An MCP server that starts and never answers anything: it reads its input and says nothing.
process.stderr.write("hang.mjs: started, and will never answer\n");
process.stdin.resume();
setInterval(() => {}, 1 << 30);
