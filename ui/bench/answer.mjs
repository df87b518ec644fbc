// The long answer the UI benchmark streams (bench/long-answer.mjs).

/**
 * The answer, one token per piece: each piece carries exactly one word `w<n>` (n = its index,
 * in base 36) with the Markdown around it (paragraphs with emphasis, nested lists, a table, fenced code with
 * ``` and ~~~), so the page can be checked for every word, once, in order.
 */
export function longAnswer(count) {
  const pieces = [];
  let n = 0;
  // Base 36 keeps the words short: ~5 bytes a token, as in real text.
  const word = () => `w${(n++).toString(36)}`;
  const more = () => n < count;
  const paragraph = (words) => {
    for (let i = 0; i < words && more(); i++) {
      const w = i % 17 === 5 ? `**${word()}**` : i % 23 === 9 ? `\`${word()}\`` : word();
      pieces.push(i === words - 1 ? `${w}.\n\n` : `${w} `);
    }
  };
  const list = (items, words) => {
    for (let item = 0; item < items && more(); item++) {
      const indent = item % 4 === 3 ? '  ' : '';
      for (let i = 0; i < words && more(); i++) {
        const start = i === 0 ? `${indent}- ` : '';
        pieces.push(i === words - 1 ? `${start}${word()}\n` : `${start}${word()} `);
      }
    }
    if (pieces.length > 0) pieces[pieces.length - 1] += '\n';
  };
  const table = (rows) => {
    for (let row = 0; row < rows && more(); row++) {
      for (let cell = 0; cell < 3 && more(); cell++) {
        const last = cell === 2;
        const tail = last ? (row === 0 ? ' |\n| --- | --- | --- |\n' : ' |\n') : ' ';
        pieces.push(`| ${word()}${tail}`);
      }
    }
    if (pieces.length > 0) pieces[pieces.length - 1] += '\n';
  };
  const code = (fence, lang, lines) => {
    for (let line = 0; line < lines && more(); line++) {
      const open = line === 0 ? `${fence}${lang}\n` : '';
      const a = word();
      if (!more()) {
        pieces.push(`${open}let ${a};\n`);
        break;
      }
      pieces.push(`${open}${a} = `);
      const b = word();
      pieces.push(lang === 'python' ? `${b}  # n\n` : `${b};\n`);
    }
    if (pieces.length > 0) pieces[pieces.length - 1] += `${fence}\n\n`;
  };
  while (more()) {
    paragraph(120);
    list(12, 6);
    code('```', 'js', 40);
    paragraph(90);
    table(10);
    code('~~~', 'python', 30);
  }
  return pieces;
}

