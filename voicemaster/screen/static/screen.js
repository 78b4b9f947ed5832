// The screen: reads the board from the game (server-sent events) and shows it. It sends nothing back; the only thing
// it changes is its own theme.
"use strict";

let labels = {};
let board = null;
let receivedAt = 0;
let addressCode = false;
const byId = (id) => document.getElementById(id);

function text(key) {
  const language = (board && board.language) || document.documentElement.lang || "de";
  const own = labels[language] || labels.en || {};
  return own[key] !== undefined ? own[key] : key;
}

function money(amount) {
  const language = (board && board.language) || "de";
  try {
    return new Intl.NumberFormat(language, {
      style: "currency", currency: (board && board.currency) || "EUR", maximumFractionDigits: 0,
    }).format(amount);
  } catch (_) {
    return String(amount);
  }
}

function element(tag, className, content) {
  const made = document.createElement(tag);
  if (className) made.className = className;
  if (content !== undefined) made.textContent = content;
  return made;
}

function fill(list, items) {
  list.replaceChildren(...items);
}

function renderStatus() {
  const parts = [];
  if (board.round) parts.push(`${text("round")} ${board.round}`);
  const question = board.question;
  if (question) {
    parts.push(`${text("question")} ${question.number}`);
    parts.push(money(question.amount));
  }
  if (board.game_over) parts.push(text("game_over"));
  byId("status").textContent = parts.length ? parts.join(" · ") : "voicemaster";
  const turn = byId("turn");
  turn.replaceChildren();
  if (board.turn) {
    turn.append(`${text("turn")}: `, element("strong", "", board.turn));
  }
  if (board.listening && board.listening !== board.turn) {
    turn.append(` (${text("listening")}: ${board.listening})`);
  }
}

function renderQuestion() {
  const question = board.question;
  byId("question-text").textContent = question ? question.text : board.game_over ? text("game_over") : text("waiting_game");
  const category = byId("category");
  category.hidden = !(question && question.category);
  category.textContent = question ? question.category : "";
  const options = (question ? question.options : []).filter((option) => !option.removed).map((option) => {
    const item = element("li", "option");
    item.dataset.letter = option.letter;
    item.append(element("span", "letter", `${option.letter}:`), element("span", "text", option.text));
    const marks = [];
    if (option.locked_by.length) {
      item.classList.add("locked");
      marks.push(`◆ ${text("locked")}: ${option.locked_by.join(", ")}`);
    }
    if (option.bundles !== null && option.bundles !== undefined) {
      const locked = board.money.placed_locked && option.bundles ? `◆ ${text("locked")}: ` : "";
      if (locked) item.classList.add("locked");
      marks.push(`${locked}${option.bundles} ${text("bundles")} · ${money(option.bundles * board.money.bundle_value)}`);
    }
    if (option.correct === true) {
      item.classList.add("correct");
      marks.push(`✓ ${text("right")}`);
    } else if (option.correct === false && (option.locked_by.length || option.bundles)) {
      item.classList.add("wrong");
      marks.push(`✗ ${text("wrong")}`);
    }
    for (const mark of marks) item.append(element("span", "mark", mark));
    return item;
  });
  fill(byId("options"), options);
  const categories = byId("categories");
  const offered = board.money ? board.money.categories : [];
  categories.hidden = !(offered && offered.length) || Boolean(question && !question.revealed);
  categories.textContent = offered && offered.length ? `${text("categories")}: ${offered.map((c, i) => `${"AB"[i]}: ${c}`).join(" · ")}` : "";
}

function timerLeft() {
  const timer = board.timer;
  if (!timer) return 0;
  const gone = board.live ? (performance.now() - receivedAt) / 1000 : 0;
  return Math.max(0, timer.left - gone);
}

function renderTimer() {
  const area = byId("timer");
  area.hidden = !board.timer;
  if (!board.timer) return;
  byId("timer-label").textContent = text(board.format === "moneydrop" ? "timer_md" : "timer");
  const left = timerLeft();
  byId("timer-left").textContent = String(Math.ceil(left));
  byId("timer-unit").textContent = text("seconds");
  byId("timer-bar").style.width = `${(100 * left) / board.timer.seconds}%`;
}

function renderAudience() {
  const area = byId("audience");
  const audience = board.audience;
  area.hidden = !audience;
  if (!audience) return;
  byId("audience-label").textContent = text("audience");
  const most = Math.max(1, ...audience.shares.map((share) => share.n));
  const scale = audience.unit === "percent" ? 100 : most;
  const unit = audience.unit === "percent" ? "%" : ` ${text("votes")}`;
  const rows = [...audience.shares].sort((a, b) => a.letter.localeCompare(b.letter)).map((share) => {
    const row = element("li");
    const track = element("div", "track");
    const bar = element("div", "fill");
    bar.style.width = `${(100 * share.n) / scale}%`;
    track.append(bar);
    track.setAttribute("aria-hidden", "true");
    row.append(element("span", "letter", share.letter), track, element("span", "share", `${share.n}${unit}`));
    return row;
  });
  fill(byId("audience-bars"), rows);
}

function renderSheet() {
  const area = byId("sheet");
  const show = board.sheet && board.sheet.length && (board.between_rounds || board.game_over);
  area.hidden = !show;
  if (!show) return;
  byId("sheet-label").textContent = text("sheet");
  const table = byId("sheet-table");
  const names = board.players.map((player) => player.name);
  const head = element("tr");
  head.append(element("th", "", text("round")), ...names.map((name) => element("th", "amount", name)));
  const rows = board.sheet.map((line) => {
    const row = element("tr");
    row.append(element("th", "", String(line.round)));
    for (const name of names) {
      const found = line.results.find((result) => result.player === name);
      row.append(element("td", "amount", found ? money(found.total) : "–"));
    }
    return row;
  });
  const total = element("tr");
  total.append(element("th", "", text("total")), ...names.map((name) => element("td", "amount", money(board.totals[name] || 0))));
  const thead = element("thead");
  thead.append(head);
  const tbody = element("tbody");
  tbody.append(...rows, total);
  table.replaceChildren(thead, tbody);
  byId("winners").textContent = board.winners.length ? `${text("winner")}: ${board.winners.join(", ")}` : "";
}

function renderSide() {
  byId("players-label").textContent = text(board.format === "moneydrop" ? "teams" : "players");
  fill(byId("players"), (board.players || []).map((player) => {
    const item = element("li");
    const name = element("span", player.turn ? "name turn-mark" : "name", player.turn ? `▶ ${player.name}` : player.name);
    const jokers = player.jokers_left.map((joker) => text(joker === "audience" ? "audience_joker" : joker));
    const detail = `${money(player.total)} · ${text(player.status)} · ${text("jokers_left")}: ${jokers.length ? jokers.join(", ") : text("none")}`;
    item.append(name, element("span", "detail", detail));
    return item;
  }));
  const ladderArea = byId("ladder-area");
  ladderArea.hidden = !board.ladder;
  if (board.ladder) {
    byId("ladder-label").textContent = text("ladder");
    fill(byId("ladder"), board.ladder.map((step) => {
      const item = element("li", [step.safe ? "safe" : "", step.current ? "current" : ""].join(" ").trim());
      const marks = `${step.current ? "▶ " : ""}${step.level}${step.safe ? " ■" : ""}`;
      item.append(element("span", "", marks), element("span", "", money(step.amount)));
      const said = [step.safe ? text("safe") : "", step.current ? text("current") : ""].filter(Boolean).join(", ");
      if (said) item.setAttribute("title", said);
      if (step.current) item.setAttribute("aria-current", "step");
      if (said) item.append(element("span", "visually-hidden", said));
      return item;
    }));
  }
  const moneyArea = byId("money");
  moneyArea.hidden = board.format !== "moneydrop";
  if (board.money) {
    byId("money-label").textContent = text("money");
    byId("money-left").textContent = `${money(board.money.bundles * board.money.bundle_value)} (${board.money.bundles} ${text("bundles")})`;
  }
}

function heardText(heard) {
  if (heard.intent === "silence") return `(${text("heard_nothing")})`;
  const said = heard.text ? `„${heard.text}“` : "";
  let meant = "";
  if (heard.intent === "unknown") meant = text("not_understood");
  else if (heard.intent === "answer") meant = `${text("answer")} ${heard.value}`;
  else if (heard.intent === "joker") meant = `${text("joker")}: ${text(heard.value === "audience" ? "audience_joker" : heard.value)}`;
  else if (heard.intent === "yes" || heard.intent === "no") meant = text(heard.intent);
  else meant = heard.value ? `${heard.intent} ${heard.value}` : heard.intent;
  return `${said} → ${meant}`;
}

// The page's own address as a QR code, beside the ready sentence while no game is under way (serve's waiting), where
// the server gives one: the screen listens on the network. During a game the page is the game's.
function renderFollow() {
  const area = byId("follow");
  area.hidden = !(addressCode && (!board.format || board.game_over));
  if (area.hidden) return;
  byId("follow-label").textContent = text("follow");
  byId("follow-code").alt = text("follow_code");
}

function renderCaptions() {
  byId("said-label").textContent = text("said");
  const said = byId("said");
  if (said.textContent !== board.said) said.textContent = board.said;
  const heard = board.heard;
  byId("heard-label").textContent = heard ? `${heard.player}:` : "";
  byId("heard").textContent = heard ? heardText(heard) : "";
}

function render() {
  if (!board) return;
  document.documentElement.lang = board.language || "de";
  renderStatus();
  renderQuestion();
  renderTimer();
  renderAudience();
  renderSheet();
  renderSide();
  renderFollow();
  renderCaptions();
  themeButton();
}

function themeButton() {
  const button = byId("theme");
  const light = document.documentElement.dataset.theme === "light";
  button.textContent = text(light ? "theme_dark" : "theme_light");
  button.setAttribute("aria-pressed", String(light));
}

function chooseTheme() {
  const asked = new URLSearchParams(location.search).get("theme");
  let saved = null;
  try { saved = localStorage.getItem("voicemaster-theme"); } catch (_) { /* private mode */ }
  const prefersLight = window.matchMedia && window.matchMedia("(prefers-color-scheme: light)").matches;
  document.documentElement.dataset.theme = asked || saved || (prefersLight ? "light" : "dark");
  byId("theme").addEventListener("click", () => {
    const next = document.documentElement.dataset.theme === "light" ? "dark" : "light";
    document.documentElement.dataset.theme = next;
    try { localStorage.setItem("voicemaster-theme", next); } catch (_) { /* private mode */ }
    themeButton();
  });
}

function take(data) {
  board = JSON.parse(data);
  receivedAt = performance.now();
  document.body.dataset.version = String(board.version);
  byId("connection").textContent = "";
  render();
}

// The phones' QR code, where this computer's own screen is given one (never a page opened from elsewhere).
async function showJoin() {
  try {
    const answer = await fetch("/phones.svg");
    if (!answer.ok) return;
    byId("join-code").src = "/phones.svg";
    byId("join-code").alt = text("join_code");
    byId("join-label").textContent = text("join");
    byId("join").hidden = false;
  } catch (_) {
    // no phones in this game
  }
}

async function showAddress() {
  try {
    const answer = await fetch("/address.svg");
    if (!answer.ok) return;
    byId("follow-code").src = "/address.svg";
    addressCode = true;
    render();
  } catch (_) {
    // on this computer only: nobody else could open the page
  }
}

async function start() {
  chooseTheme();
  try {
    labels = await (await fetch("/static/labels.json")).json();
  } catch (_) {
    labels = {};
  }
  themeButton();
  showJoin();
  showAddress();
  const events = new EventSource("/events");
  events.addEventListener("board", (event) => take(event.data));
  events.addEventListener("error", () => { if (board) byId("connection").textContent = text("disconnected"); });
  setInterval(() => { if (board && board.timer && board.live) renderTimer(); }, 250);
}

start();
