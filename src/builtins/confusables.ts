/**
 * Characters drawn like ASCII: the look-alikes the fence folds before it matches its patterns, so that a
 * marker, tag or token spelled in Cherokee, Lisu, Armenian, Greek, Cyrillic or small capitals is still
 * found. The table holds every code point that Unicode's confusables (UTS #39, confusables.txt 17.0.0)
 * maps to ASCII letters, digits or the punctuation of the fence's patterns; scripts/confusables-table.mjs
 * prints it from a copy of that file. Compatibility forms (full-width, mathematical, Roman numerals,
 * circled and squared letters) are not in it: NFKD takes those to ASCII first.
 */

// Each row: the ASCII a character is confused with (its prototype), then the characters.
// confusables.txt 17.0.0: 777 code points.
const UTS39: readonly (readonly [string, string])[] = [
  [" ", "\u{2028}\u{2029}\u{1680}"],
  ["'B", "\u{181}"],
  ["'D", "\u{18A}"],
  ["'P", "\u{1A4}"],
  ["'T", "\u{1AC}"],
  ["'Y", "\u{1B3}"],
  ["(", "\u{2768}\u{2772}\u{3014}\u{FD3E}"],
  ["((", "\u{2E28}"],
  [")", "\u{2769}\u{2773}\u{3015}\u{FD3F}"],
  ["))", "\u{2E29}"],
  ["*", "\u{204E}\u{66D}\u{2217}\u{1031F}"],
  [
    "-",
    "\u{2010}\u{2012}\u{2013}\u{6D4}\u{2043}\u{2D7}\u{2212}\u{2796}\u{2CBB}\u{2CBA}\u{2A29}\u{2E1A}\u{2238}\u{2CB3}\u{2CB2}\u{2A2A}",
  ],
  [
    "/",
    "\u{1735}\u{2041}\u{2215}\u{2044}\u{2571}\u{27CB}\u{29F8}\u{1D23A}\u{31D3}\u{3033}\u{2CC7}\u{2CC6}\u{30CE}\u{4E3F}\u{29F6}",
  ],
  ["//", "\u{2AFD}"],
  ["///", "\u{2AFB}"],
  ["10", "\u{23E8}"],
  ["2", "\u{A75A}\u{1A7}\u{3E8}\u{A644}\u{14BF}\u{A6EF}\u{1BB}"],
  [
    "3",
    "\u{1D206}\u{969}\u{AE9}\u{A7AB}\u{21C}\u{1B7}\u{A76A}\u{2C9C}\u{2CC4}\u{2CCC}\u{417}\u{4E0}\u{16F3B}\u{118CA}\u{498}",
  ],
  ["4", "\u{13CE}\u{118AF}"],
  ["5", "\u{1BC}\u{118BB}"],
  ["6", "\u{2CD3}\u{2CD2}\u{3EC}\u{2CDC}\u{431}\u{13EE}\u{118D5}"],
  ["7", "\u{1D212}\u{104D2}\u{118C6}"],
  ["8", "\u{9EA}\u{A6A}\u{1E8CB}\u{223}\u{222}\u{1031A}"],
  ["9", "\u{A67}\u{B68}\u{9ED}\u{D6D}\u{A76E}\u{2CCB}\u{2CCA}\u{118CC}\u{118AC}\u{118D6}"],
  [
    ":",
    "\u{589}\u{703}\u{704}\u{16EC}\u{1803}\u{1809}\u{205A}\u{5C3}\u{2F8}\u{A789}\u{2236}\u{2D0}\u{A4FD}\u{11DD9}",
  ],
  ["<", "\u{2039}\u{276E}\u{2C2}\u{1D236}\u{1438}\u{16B2}"],
  ["<<", "\u{226A}"],
  ["<<<", "\u{22D8}"],
  ["=", "\u{1400}\u{2E40}\u{30A0}\u{A4FF}\u{225A}\u{2259}\u{2257}\u{2250}\u{2251}\u{2B96}\u{2A6E}\u{225E}"],
  [">", "\u{203A}\u{276F}\u{2C3}\u{1D237}\u{1433}\u{16F3F}"],
  ["><", "\u{2AA5}"],
  [">>", "\u{226B}\u{2A20}"],
  [">>>", "\u{22D9}"],
  ["A", "\u{391}\u{410}\u{13AA}\u{15C5}\u{A4EE}\u{16F40}\u{102A0}"],
  ["AA", "\u{A732}"],
  ["AE", "\u{C6}\u{4D4}"],
  ["AO", "\u{A734}"],
  ["AR", "\u{1F707}"],
  ["AU", "\u{A736}"],
  ["AV", "\u{A738}\u{A73A}"],
  ["AY", "\u{A73C}"],
  ["B", "\u{A7B4}\u{392}\u{2C82}\u{412}\u{13F4}\u{15F7}\u{A4D0}\u{10282}\u{102A1}\u{10301}"],
  [
    "C",
    "\u{1F74C}\u{118E9}\u{118F2}\u{2CA4}\u{421}\u{13DF}\u{A4DA}\u{102A2}\u{10302}\u{10415}\u{1051C}\u{20A1}\u{1F16E}\u{4AA}",
  ],
  ["C'", "\u{187}"],
  ["D", "\u{13A0}\u{15DE}\u{15EA}\u{A4D3}\u{110}\u{D0}\u{189}"],
  ["E", "\u{22FF}\u{395}\u{415}\u{2D39}\u{13AC}\u{A4F0}\u{118A6}\u{118AE}\u{10286}\u{246}"],
  ["F", "\u{1D213}\u{A798}\u{3DC}\u{15B4}\u{A4DD}\u{118C2}\u{118A2}\u{10287}\u{102A5}\u{10525}\u{191}"],
  ["G", "\u{50C}\u{13C0}\u{13F3}\u{A4D6}\u{1E4}"],
  ["G'", "\u{193}"],
  ["H", "\u{397}\u{2C8E}\u{41D}\u{13BB}\u{157C}\u{A4E7}\u{102CF}\u{2C67}\u{4A2}\u{126}\u{4C9}\u{4C7}"],
  ["J", "\u{A7B2}\u{37F}\u{408}\u{13AB}\u{148D}\u{A4D9}\u{248}"],
  ["K", "\u{39A}\u{2C94}\u{41A}\u{13E6}\u{16D5}\u{A4D7}\u{10518}\u{2C69}\u{49A}\u{20AD}\u{A740}\u{49E}"],
  ["K'", "\u{198}"],
  ["L", "\u{1D22A}\u{2CD0}\u{13DE}\u{14AA}\u{A4E1}\u{16F16}\u{118A3}\u{118B2}\u{1041B}\u{10526}\u{141}"],
  ["M", "\u{39C}\u{3FA}\u{2C98}\u{41C}\u{13B7}\u{15F0}\u{16D6}\u{A4DF}\u{102B0}\u{10311}\u{4CD}"],
  ["MB", "\u{1F76B}"],
  ["N", "\u{39D}\u{2C9A}\u{A4E0}\u{10513}\u{1018E}\u{19D}"],
  [
    "O",
    "\u{7C0}\u{CE6}\u{3007}\u{118E0}\u{39F}\u{2C9E}\u{41E}\u{555}\u{2D54}\u{12D0}\u{B20}\u{104C2}\u{A4F3}\u{118B5}\u{10292}\u{102AB}\u{10404}\u{10516}\u{11DE0}\u{D8}\u{2D41}\u{2296}\u{229D}\u{236C}\u{1D21A}\u{1F714}\u{19F}\u{A74A}\u{3B8}\u{398}\u{2C90}\u{4E8}\u{472}\u{2D31}\u{13BE}\u{13EB}",
  ],
  ["O'", "\u{13A4}"],
  ["OE", "\u{152}"],
  ["OO", "\u{A74E}\u{A698}"],
  ["P", "\u{3A1}\u{2CA2}\u{2CCE}\u{420}\u{13E2}\u{146D}\u{A4D1}\u{10295}"],
  ["P'", "\u{1486}"],
  ["Q", "\u{2D55}"],
  ["QE", "\u{1F700}"],
  ["R", "\u{1D216}\u{1A6}\u{13A1}\u{13D2}\u{104B4}\u{1587}\u{A4E3}\u{16F35}"],
  ["S", "\u{405}\u{54F}\u{13D5}\u{13DA}\u{A4E2}\u{16F3A}\u{10296}\u{10420}"],
  [
    "T",
    "\u{22A4}\u{27D9}\u{1F768}\u{3A4}\u{2CA6}\u{422}\u{13A2}\u{A4D4}\u{16F0A}\u{118BC}\u{10297}\u{102B1}\u{10315}\u{2361}\u{23E}\u{1AE}\u{4AC}\u{20AE}\u{166}",
  ],
  ["T3", "\u{A728}"],
  ["U", "\u{222A}\u{22C3}\u{54D}\u{1200}\u{104CE}\u{144C}\u{A4F4}\u{16F42}\u{118B8}\u{244}\u{13CC}"],
  ["U'", "\u{1467}"],
  [
    "V",
    "\u{1D20D}\u{667}\u{6F7}\u{474}\u{2D38}\u{13D9}\u{142F}\u{A6DF}\u{A4E6}\u{16F08}\u{118A0}\u{1051D}\u{10197}\u{1F708}",
  ],
  ["VB", "\u{1F76C}"],
  ["W", "\u{118E6}\u{118EF}\u{51C}\u{13B3}\u{13D4}\u{A4EA}\u{20A9}"],
  [
    "X",
    "\u{166D}\u{2573}\u{10322}\u{118EC}\u{A7B3}\u{3A7}\u{2CAC}\u{425}\u{2D5D}\u{16B7}\u{A4EB}\u{10290}\u{102B4}\u{10317}\u{10527}\u{4B2}\u{10196}",
  ],
  [
    "Y",
    "\u{3A5}\u{2CA8}\u{423}\u{4AE}\u{13A9}\u{13BD}\u{A4EC}\u{16F43}\u{118A4}\u{102B2}\u{A5}\u{24E}\u{4B0}",
  ],
  ["Z", "\u{118E5}\u{102F5}\u{396}\u{13C3}\u{A4DC}\u{118A9}\u{1B5}\u{224}"],
  ["_", "\u{7FA}"],
  ["a", "\u{237A}\u{251}\u{3B1}\u{430}\u{2376}"],
  ["aa", "\u{A733}"],
  ["ae", "\u{E6}\u{4D5}"],
  ["ao", "\u{A735}"],
  ["au", "\u{A737}"],
  ["av", "\u{A739}\u{A73B}"],
  ["ay", "\u{A73D}"],
  [
    "b",
    "\u{184}\u{42C}\u{13CF}\u{1472}\u{15AF}\u{16EB6}\u{253}\u{1473}\u{183}\u{182}\u{411}\u{180}\u{48D}\u{48C}\u{463}\u{462}",
  ],
  ["b'", "\u{1488}"],
  ["bl", "\u{42B}"],
  ["c", "\u{1D04}\u{2CA5}\u{441}\u{1004}\u{105A}\u{ABAF}\u{1043D}\u{A2}\u{23C}\u{4AB}"],
  ["d", "\u{501}\u{13E7}\u{146F}\u{A4D2}\u{257}\u{256}\u{18C}\u{111}\u{20AB}"],
  ["d'", "\u{1487}"],
  ["dz", "\u{2A3}"],
  ["e", "\u{212E}\u{AB32}\u{435}\u{4BD}\u{247}\u{4BF}"],
  ["f", "\u{AB35}\u{A799}\u{192}\u{1E9D}\u{584}\u{1D6E}"],
  ["fn", "\u{2A9}"],
  ["g", "\u{261}\u{1D83}\u{18D}\u{581}\u{260}\u{1E5}"],
  ["h", "\u{4BB}\u{570}\u{13C2}\u{266}\u{A695}\u{13F2}\u{127}\u{45B}"],
  [
    "i",
    "\u{2373}\u{131}\u{26A}\u{269}\u{3B9}\u{2C93}\u{456}\u{A647}\u{582}\u{AB75}\u{13A5}\u{118C3}\u{2378}\u{268}\u{1D7B}\u{1D7C}",
  ],
  ["j", "\u{3F3}\u{458}\u{249}"],
  ["k", "\u{199}"],
  [
    "l",
    "\u{5C0}\u{2223}\u{23FD}\u{661}\u{6F1}\u{10320}\u{1E8C7}\u{196}\u{1C0}\u{399}\u{2C92}\u{406}\u{4CF}\u{4C0}\u{5D5}\u{5DF}\u{627}\u{7CA}\u{2D4F}\u{16C1}\u{A4F2}\u{16F28}\u{1028A}\u{10309}\u{11DDA}\u{11DE1}\u{16EAA}\u{142}\u{26D}\u{197}\u{19A}\u{26B}\u{673}",
  ],
  ["l'", "\u{5F1}"],
  ["lO", "\u{42E}"],
  ["ll", "\u{2016}\u{2225}\u{1C1}\u{5F0}\u{10199}"],
  ["llS", "\u{10198}"],
  ["ls", "\u{2AA}"],
  ["lt", "\u{20B6}"],
  ["lz", "\u{2AB}"],
  ["n", "\u{578}\u{57C}\u{273}\u{19E}\u{14B}\u{3B7}\u{572}\u{1D70}"],
  [
    "o",
    "\u{966}\u{9E6}\u{A66}\u{AE6}\u{B66}\u{BE6}\u{C66}\u{D66}\u{E50}\u{ED0}\u{1040}\u{17E0}\u{114D0}\u{665}\u{6F5}\u{1D0F}\u{1D11}\u{AB3D}\u{3BF}\u{3C3}\u{2C9F}\u{3ED}\u{43E}\u{10FF}\u{585}\u{5E1}\u{647}\u{6BE}\u{6C1}\u{6D5}\u{D20}\u{101D}\u{104EA}\u{118C8}\u{118D7}\u{1042C}\u{6FF}\u{F8}\u{AB3E}\u{275}\u{A74B}\u{2C91}\u{4E9}\u{473}\u{AB8E}\u{ABBB}\u{AB74}\u{10D7}\u{1010}",
  ],
  ["o/0", "\u{66A}\u{2052}"],
  ["o/00", "\u{2030}\u{609}"],
  ["o/000", "\u{2031}\u{60A}"],
  ["oe", "\u{153}"],
  ["oo", "\u{221E}\u{A74F}\u{A699}"],
  ["p", "\u{2374}\u{FE}\u{1BF}\u{3C1}\u{3F8}\u{2CA3}\u{2CCF}\u{440}\u{1A5}\u{1D7D}"],
  ["q", "\u{51B}\u{563}\u{566}\u{2A0}"],
  ["r", "\u{AB47}\u{AB48}\u{1D26}\u{2C85}\u{433}\u{AB81}\u{27D}\u{27C}\u{24D}\u{493}\u{1D72}"],
  ["r'", "\u{491}"],
  ["rn", "\u{118E3}\u{11700}\u{20A5}\u{271}\u{1D6F}"],
  ["s", "\u{A731}\u{1BD}\u{455}\u{D1F}\u{ABAA}\u{118C1}\u{10448}\u{282}\u{1D74}"],
  ["sss", "\u{1F75C}"],
  ["t", "\u{1AD}\u{167}\u{1D75}"],
  ["tf", "\u{A777}"],
  ["ts", "\u{2A6}"],
  ["u", "\u{A79F}\u{1D1C}\u{AB4E}\u{AB52}\u{28B}\u{3C5}\u{57D}\u{104F6}\u{118D8}\u{45F}\u{1D7E}\u{AB9C}"],
  ["ue", "\u{1D6B}"],
  ["uo", "\u{AB63}"],
  ["v", "\u{2228}\u{22C1}\u{1D20}\u{3BD}\u{475}\u{5D8}\u{11706}\u{ABA9}\u{118C0}"],
  [
    "w",
    "\u{26F}\u{1D21}\u{2CBD}\u{461}\u{448}\u{51D}\u{561}\u{1170A}\u{1170E}\u{1170F}\u{AB83}\u{47D}\u{114C5}\u{A761}",
  ],
  ["x", "\u{166E}\u{D7}\u{292B}\u{292C}\u{2A2F}\u{445}\u{1541}\u{157D}\u{2A30}"],
  [
    "y",
    "\u{263}\u{1D8C}\u{28F}\u{1EFF}\u{AB5A}\u{3B3}\u{2CA9}\u{443}\u{4AF}\u{10E7}\u{118DC}\u{1B4}\u{24F}\u{4B1}",
  ],
  ["z", "\u{1D22}\u{AB93}\u{118C4}\u{290}\u{1B6}\u{225}\u{1D76}"],
  ["~", "\u{2053}\u{223C}\u{2368}\u{2E1E}\u{2A6A}\u{2E1F}"],
];

// What confusables.txt leaves out and "fancy text" generators use: Latin small capitals, negative circled
// and squared letters, regional indicators (drawn as boxed letters where no flag pairs them), and the
// blank Braille pattern (drawn as a space).
const SMALL_CAPITALS = "ᴀAʙBᴅDᴇEꜰFɢGʜHᴊJᴋKʟLᴍMɴNᴘPꞯQʀRᴛT";

function supplement(): [string, string][] {
  const rows: [string, string][] = [];
  const smallCapitals = [...SMALL_CAPITALS];
  for (let i = 0; i < smallCapitals.length; i += 2) rows.push([smallCapitals[i + 1]!, smallCapitals[i]!]);
  for (let letter = 0; letter < 26; letter++) {
    const ascii = String.fromCharCode(0x41 + letter);
    // NEGATIVE CIRCLED, NEGATIVE SQUARED LATIN CAPITAL LETTER, REGIONAL INDICATOR SYMBOL LETTER.
    for (const first of [0x1f150, 0x1f170, 0x1f1e6]) rows.push([ascii, String.fromCodePoint(first + letter)]);
  }
  rows.push([" ", "\u2800"]);
  return rows;
}

/** Every character of the table with the ASCII it is drawn like. */
export const ASCII_LOOKALIKES: ReadonlyMap<string, string> = (() => {
  const map = new Map<string, string>();
  for (const [ascii, chars] of [...UTS39, ...supplement()]) for (const char of chars) map.set(char, ascii);
  return map;
})();

/**
 * The ASCII that `char` (one code point, in its NFKD form, not ASCII) is drawn like, or undefined. A
 * letter not in the table is looked up by its other case too (the small Cherokee letters, Cyrillic `н`
 * and `т`, which read as small capitals of letters that are).
 */
export function asciiLookalike(char: string): string | undefined {
  const direct = ASCII_LOOKALIKES.get(char);
  if (direct !== undefined) return direct;
  const upper = char.toUpperCase();
  if (upper !== char && upper.length === char.length) {
    const found = ASCII_LOOKALIKES.get(upper);
    if (found !== undefined) return found;
  }
  const lower = char.toLowerCase();
  return lower !== char && lower.length === char.length ? ASCII_LOOKALIKES.get(lower) : undefined;
}
