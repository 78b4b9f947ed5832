// The join page: the game's code (from the QR code's address, or typed), the player, then the phone's microphone
// streamed to the game over a WebSocket. One large control at a time; every change said in the status line.
// Joined, it is the player's own screen: whose turn, their money, the question and its options in large type, and
// what the game tells this phone on the same socket: that it heard the player ("heard_you", at the end of their
// speech) and what it read. "Hold to talk" sends silence except while the large button is held (the loudest rooms).
// Before the players are known the page offers joining as a new player: the quizmaster asks that player's name
// through this phone, and the game tells the page whose microphone it has become ("named"). A game that takes
// newcomers between rounds offers it beside the players too: the phone waits, and its name is asked for when the
// next round starts.
// A connection that drops (the Wi-Fi, the game's machine busy) is opened again as the same player, the microphone
// kept on, every RETRY_MS up to RETRIES times, the page saying so; the game hears the player through the room's
// microphone meanwhile. A connection the game refuses or lets go is not retried: the page offers the players.
"use strict";

const RETRIES = 10;
const RETRY_MS = 1000;
const REFUSED = 1008; // the game took no phone for this player (or no new player, once the players are known)

let labels = {};
let language = document.documentElement.lang || "de";
let code = new URLSearchParams(location.search).get("code") || "";
let poll = null;
let holdToTalk = false;
let holding = false;
let joined = false;
let running = false; // the players are known: a new player waits for the next round
let teams = false; // a money drop's teams: a new team waits for the next team's run

const byId = (id) => document.getElementById(id);

function text(key, values = {}) {
  const own = labels[language] || labels.en || {};
  let said = own[key] || key;
  for (const [name, value] of Object.entries(values)) said = said.replace(`{${name}}`, value);
  return said;
}

function say(key, values) {
  byId("status").textContent = text(key, values);
}

function askCode(wrong) {
  byId("players").hidden = true;
  byId("code-form").hidden = false;
  byId("code-label").textContent = text("code");
  byId("code-go").textContent = text("go");
  if (wrong) say("wrong_code");
  byId("code").focus();
}

async function loadPlayers() {
  const answer = await fetch(`/players?code=${encodeURIComponent(code)}`);
  if (answer.status === 403) {
    askCode(code !== "");
    return;
  }
  const found = await answer.json();
  if (found.language) {
    language = found.language;
    document.documentElement.lang = language;
  }
  byId("code-form").hidden = true;
  if (joined) return;
  if (!found.players.length) {
    // Names not known yet: one control, joining as a new player; the players are offered once they are known.
    if (!poll) {
      showPlayers([null]);
      say("waiting");
      poll = setInterval(loadPlayers, 2000);
    }
    return;
  }
  clearInterval(poll);
  poll = null;
  running = true;
  teams = Boolean(found.teams);
  showPlayers(found.newcomers ? [...found.players, null] : found.players);
  if (byId("status").textContent === text("waiting")) byId("status").textContent = "";
}

function showPlayers(players) {
  const list = byId("player-list");
  list.replaceChildren();
  for (const player of players) {
    const item = document.createElement("li");
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = player === null ? text("join_new") : text("join", { player });
    button.addEventListener("click", () => join(player));
    item.append(button);
    list.append(item);
  }
  byId("players-label").textContent = text("players");
  byId("players").hidden = false;
}

// Joins as `player`, or as a new player (null) whose name the quizmaster asks through this phone.
async function join(player) {
  joined = true;
  clearInterval(poll);
  poll = null;
  say("asking");
  let stream;
  try {
    stream = await navigator.mediaDevices.getUserMedia({
      audio: { echoCancellation: true, noiseSuppression: true, autoGainControl: true, channelCount: 1 },
    });
  } catch (error) {
    joined = false;
    say("no_microphone", { reason: error.message || error.name });
    return;
  }
  const context = new AudioContext({ sampleRate: 16000 });
  await context.audioWorklet.addModule("/static/capture.js");
  const source = context.createMediaStreamSource(stream);
  const capture = new AudioWorkletNode(context, "capture");
  source.connect(capture);
  capture.connect(context.destination); // pulled by the output, which it leaves silent
  let socket = null;
  let retries = 0;
  capture.port.onmessage = (message) => {
    if (socket === null || socket.readyState !== WebSocket.OPEN) return;
    // Held to talk and not held: silence, so that the game knows the phone is still there.
    socket.send(holdToTalk && !holding ? new ArrayBuffer(message.data.byteLength) : message.data);
  };
  const stop = () => {
    capture.port.onmessage = null;
    byId("game").hidden = true;
    byId("mine").hidden = true;
    for (const track of stream.getTracks()) track.stop();
    context.close();
    joined = false;
    say(letGo || "closed");
    loadPlayers(); // the players as they are now
  };
  let letGo = null; // why the game let this phone go: the status it shows
  const open = () => {
    const who = player === null ? "new=1" : `player=${encodeURIComponent(player)}`;
    socket = new WebSocket(`wss://${location.host}/sound?code=${encodeURIComponent(code)}&${who}`);
    listen(socket);
  };
  const listen = (socket) => {
    socket.binaryType = "arraybuffer";
    socket.addEventListener("message", (message) => {
      if (typeof message.data !== "string") return;
      const notice = JSON.parse(message.data);
      if (notice.event !== "named") {
        told(notice);
      } else if (notice.player) {
        player = notice.player; // the name this player said into the phone
        say("listening", { player });
        follow(player, socket);
      } else {
        // Never asked for a name, or asked round after round and none said: the players are offered.
        letGo = notice.unanswered ? "not_joined" : "not_named";
        socket.close();
      }
    });
    socket.addEventListener("open", () => {
      retries = 0;
      byId("players").hidden = true;
      byId("mine").hidden = false;
      if (player === null) {
        say(running ? (teams ? "new_team_waiting" : "new_waiting") : "new_listening");
        return;
      }
      say("listening", { player });
      follow(player, socket);
    });
    socket.addEventListener("close", (closed) => {
      if (letGo || closed.code === REFUSED || retries >= RETRIES) {
        stop();
        return;
      }
      retries += 1;
      say("reconnecting");
      setTimeout(open, RETRY_MS);
    });
  };
  open();
}

// The player's own screen while joined: whose turn it is, the question and the options read so far, what was heard.
function follow(player, socket) {
  const look = async () => {
    if (socket.readyState !== WebSocket.OPEN) return;
    try {
      const answer = await fetch(`/board?code=${encodeURIComponent(code)}`);
      if (answer.ok) show(player, await answer.json());
    } catch {
      // the next look tries again
    }
    setTimeout(look, 1000);
  };
  look();
}

// What the game tells this phone while it listens to its player (or, "for_everyone", to all the players through it).
function told(notice) {
  const heard = byId("heard");
  if (notice.event === "for_everyone") {
    forEveryone = true;
    showTurn(null, null);
  } else if (notice.event === "heard_you") {
    heard.textContent = text("heard_you");
    heard.classList.add("now");
    if (navigator.vibrate) navigator.vibrate(60);
  } else if (notice.event === "heard") {
    forEveryone = false;
    heard.classList.remove("now");
    shownHeard = notice.text;
    heard.textContent = notice.text ? text(notice.asked_again ? "unclear" : "heard", { text: notice.text }) : "";
  }
}

let shownHeard = null;
let forEveryone = false; // a question to all the players is heard through this phone until something is heard

// Whose turn it is, as the board says (`listening`); a question put to everyone through this phone says so.
function showTurn(player, listening) {
  const turn = byId("turn");
  if (listening) forEveryone = false; // a player's turn since: the question to everyone went unanswered
  const mine = forEveryone || (Boolean(listening) && listening === player);
  if (forEveryone) turn.textContent = text("for_everyone");
  else turn.textContent = listening ? (mine ? text("your_turn") : text("turn", { player: listening })) : "";
  turn.classList.toggle("mine", mine);
}

function money(amount, board) {
  try {
    return new Intl.NumberFormat(language, {
      style: "currency", currency: board.currency || "EUR", maximumFractionDigits: 0,
    }).format(amount);
  } catch {
    return `${amount} ${board.currency || ""}`.trim(); // points, or a currency the browser does not know
  }
}

function setUpHoldToTalk() {
  const hold = byId("hold");
  const talk = byId("talk");
  labelHoldToTalk();
  hold.addEventListener("click", () => {
    holdToTalk = !holdToTalk;
    hold.setAttribute("aria-pressed", String(holdToTalk));
    talk.hidden = !holdToTalk;
  });
  const press = (down) => {
    holding = down;
    talk.classList.toggle("held", down);
    labelHoldToTalk();
  };
  talk.addEventListener("pointerdown", (event) => {
    talk.setPointerCapture(event.pointerId);
    press(true);
  });
  for (const up of ["pointerup", "pointercancel"]) talk.addEventListener(up, () => press(false));
  talk.addEventListener("keydown", (event) => {
    if ((event.key === " " || event.key === "Enter") && !event.repeat) {
      event.preventDefault();
      press(true);
    }
  });
  talk.addEventListener("keyup", (event) => {
    if (event.key === " " || event.key === "Enter") press(false);
  });
  talk.addEventListener("contextmenu", (event) => event.preventDefault()); // a long press is talking, not a menu
}

function labelHoldToTalk() {
  byId("hold").textContent = text("hold");
  byId("talk").textContent = text(holding ? "talking" : "talk");
}

function show(player, board) {
  if (!board) return;
  byId("game").hidden = false;
  showTurn(player, board.listening);
  labelHoldToTalk();
  const own = (board.players || []).find((someone) => someone.name === player);
  // A Millionaire player's rounds so far and what they hold in this one; a money-drop team's money in play.
  let amount = own ? (own.total || 0) + (own.holds || 0) : null;
  if (own && own.playing && board.format === "moneydrop" && board.money) {
    amount = board.money.bundles * board.money.bundle_value;
  }
  byId("money").textContent = amount === null ? "" : text("money", { amount: money(amount, board) });
  const question = board.question;
  const stake = question && question.amount ? ` · ${text("for", { amount: money(question.amount, board) })}` : "";
  byId("question-label").textContent = question ? text("question", { number: question.number }) + stake : "";
  byId("question").textContent = question ? question.text : "";
  const options = byId("options");
  options.replaceChildren();
  for (const option of (question && question.options) || []) {
    const item = document.createElement("li");
    item.textContent = `${option.letter}: ${option.text}`;
    item.classList.toggle("removed", option.removed);
    options.append(item);
  }
  // The board's caption until the game tells this phone itself; a "heard you" shown stays until it is read.
  const heard = byId("heard");
  const caption = board.heard && board.heard.player === player ? board.heard.text : "";
  if (shownHeard === null && !heard.classList.contains("now")) {
    heard.textContent = caption ? text("heard", { text: caption }) : "";
  }
}

async function start() {
  try {
    labels = await (await fetch("/static/labels.json")).json();
  } catch {
    labels = {};
  }
  byId("warning").textContent = text("warning");
  setUpHoldToTalk();
  byId("code-form").addEventListener("submit", (event) => {
    event.preventDefault();
    code = byId("code").value.trim();
    loadPlayers();
  });
  loadPlayers();
}

start();
