// Our own tile art, drawn as SVG from a tile's notation (`5m`, `3p`, `7s`, `1z`…`7z`,
// `1f`…`8f`): dots and bamboo are shapes; characters, winds and dragons are their written
// character on the tile face, as on real tiles. No emoji and no mahjong code points.

const W = 60;
const H = 80;

const NUMERALS = ["一", "二", "三", "四", "五", "六", "七", "八", "九"];
const HONORS = ["東", "南", "西", "北", "", "發", "中"];
const FLOWERS = ["春", "夏", "秋", "冬", "梅", "蘭", "竹", "菊"];

// Where the dots or sticks sit for ranks 1–9, in a 3×3 grid (column, row; 0–2).
const LAYOUT: [number, number][][] = [
  [[1, 1]],
  [[1, 0], [1, 2]],
  [[0, 0], [1, 1], [2, 2]],
  [[0, 0], [2, 0], [0, 2], [2, 2]],
  [[0, 0], [2, 0], [1, 1], [0, 2], [2, 2]],
  [[0, 0], [2, 0], [0, 1], [2, 1], [0, 2], [2, 2]],
  [[0, 0], [1, 0], [2, 0], [1, 1], [0, 2], [1, 2], [2, 2]],
  [[0, 0], [1, 0], [2, 0], [0, 1], [2, 1], [0, 2], [1, 2], [2, 2]],
  [[0, 0], [1, 0], [2, 0], [0, 1], [1, 1], [2, 1], [0, 2], [1, 2], [2, 2]],
];

function at(col: number, row: number): [number, number] {
  return [15 + col * 15, 20 + row * 20];
}

function dots(rank: number): string {
  const colors = ["#1d4e89", "#b3261e", "#2e7d32"];
  return LAYOUT[rank - 1]
    .map(([c, r], i) => {
      const [x, y] = at(c, r);
      const big = rank === 1 ? 16 : 6.5;
      const fill = colors[(i + rank) % 3];
      return `<circle cx="${x}" cy="${y}" r="${big}" fill="none" stroke="${fill}" stroke-width="2.5"/>` +
        `<circle cx="${x}" cy="${y}" r="${big / 2.6}" fill="${fill}"/>`;
    })
    .join("");
}

function bamboo(rank: number): string {
  if (rank === 1) {
    // The one of bamboo is a bird on real tiles: a simple one of our own.
    return `<ellipse cx="30" cy="44" rx="13" ry="17" fill="#2e7d32"/>` +
      `<circle cx="30" cy="24" r="8" fill="#b3261e"/><path d="M36 24 l8 3 l-8 3z" fill="#e0a800"/>` +
      `<path d="M22 58 l-6 10 M38 58 l6 10" stroke="#2e7d32" stroke-width="3"/>`;
  }
  return LAYOUT[rank - 1]
    .map(([c, r], i) => {
      const [x, y] = at(c, r);
      const fill = i % 3 === 1 && rank > 4 ? "#b3261e" : "#2e7d32";
      return `<rect x="${x - 3.5}" y="${y - 8}" width="7" height="16" rx="3" fill="${fill}"/>` +
        `<line x1="${x - 3.5}" y1="${y}" x2="${x + 3.5}" y2="${y}" stroke="#fdfbf3" stroke-width="1.2"/>`;
    })
    .join("");
}

function written(top: string, bottom: string, topColor: string, bottomColor: string): string {
  const face = 'font-family="Noto Serif CJK SC, Noto Sans CJK SC, serif" text-anchor="middle"';
  if (!bottom) {
    return `<text x="30" y="52" font-size="34" font-weight="700" fill="${topColor}" ${face}>${top}</text>`;
  }
  return `<text x="30" y="34" font-size="22" font-weight="700" fill="${topColor}" ${face}>${top}</text>` +
    `<text x="30" y="66" font-size="26" font-weight="700" fill="${bottomColor}" ${face}>${bottom}</text>`;
}

/// The white dragon: an empty blue frame.
function whiteDragon(): string {
  return `<rect x="13" y="14" width="34" height="52" rx="3" fill="none" stroke="#1d4e89" stroke-width="3"/>` +
    `<rect x="19" y="20" width="22" height="40" rx="2" fill="none" stroke="#1d4e89" stroke-width="1.5"/>`;
}

function face(code: string): string {
  const rank = Number(code[0]);
  switch (code[1]) {
    case "p":
      return dots(rank);
    case "s":
      return bamboo(rank);
    case "m":
      return written(NUMERALS[rank - 1], "萬", "#1a1a1a", "#b3261e");
    case "z":
      if (rank === 5) return whiteDragon();
      return written(HONORS[rank - 1], "", rank === 6 ? "#2e7d32" : rank === 7 ? "#b3261e" : "#1a1a1a", "");
    case "f":
      return written(FLOWERS[rank - 1], "", rank <= 4 ? "#b3261e" : "#1d4e89", "");
    default:
      return "";
  }
}

/// A tile as SVG markup: the face up, or its back (`hidden`); `wild` marks the 财神 with a
/// gold corner, `taken` greys a discard another seat claimed.
export function tileSvg(code: string, opts: { hidden?: boolean; wild?: boolean; taken?: boolean } = {}): string {
  const body = opts.hidden
    ? `<rect x="1.5" y="1.5" width="${W - 3}" height="${H - 3}" rx="7" fill="#1f6f4a" stroke="#0f3d28" stroke-width="2"/>`
    : `<rect x="1.5" y="1.5" width="${W - 3}" height="${H - 3}" rx="7" fill="#fdfbf3" stroke="#b9b2a0" stroke-width="2"/>` +
      face(code);
  const wild = opts.wild
    ? `<path d="M${W - 22} 2 h16 a5 5 0 0 1 5 5 v16 z" fill="#e0a800"/>`
    : "";
  const taken = opts.taken ? `<rect width="${W}" height="${H}" rx="7" fill="#000" opacity="0.35"/>` : "";
  return `<svg viewBox="0 0 ${W} ${H}" aria-hidden="true" focusable="false">${body}${wild}${taken}</svg>`;
}
