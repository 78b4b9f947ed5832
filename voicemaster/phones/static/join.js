// The join page: the game's code (from the QR code's address, or typed), the player, then the phone's microphone
// streamed to the game over a WebSocket. One large control at a time; every change said in the status line.
"use strict";

let labels = {};
let language = document.documentElement.lang || "de";
let code = new URLSearchParams(location.search).get("code") || "";
let poll = null;

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
  if (!found.players.length) {
    say("waiting");
    if (!poll) poll = setInterval(loadPlayers, 2000);
    return;
  }
  clearInterval(poll);
  poll = null;
  showPlayers(found.players);
}

function showPlayers(players) {
  const list = byId("player-list");
  list.replaceChildren();
  for (const player of players) {
    const item = document.createElement("li");
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = text("join", { player });
    button.addEventListener("click", () => join(player));
    item.append(button);
    list.append(item);
  }
  byId("players-label").textContent = text("players");
  byId("players").hidden = false;
  byId("status").textContent = "";
}

async function join(player) {
  say("asking");
  let stream;
  try {
    stream = await navigator.mediaDevices.getUserMedia({
      audio: { echoCancellation: true, noiseSuppression: true, autoGainControl: true, channelCount: 1 },
    });
  } catch (error) {
    say("no_microphone", { reason: error.message || error.name });
    return;
  }
  const context = new AudioContext({ sampleRate: 16000 });
  await context.audioWorklet.addModule("/static/capture.js");
  const source = context.createMediaStreamSource(stream);
  const capture = new AudioWorkletNode(context, "capture");
  source.connect(capture);
  capture.connect(context.destination); // pulled by the output, which it leaves silent
  const address = `wss://${location.host}/sound?code=${encodeURIComponent(code)}&player=${encodeURIComponent(player)}`;
  const socket = new WebSocket(address);
  socket.binaryType = "arraybuffer";
  capture.port.onmessage = (message) => {
    if (socket.readyState === WebSocket.OPEN) socket.send(message.data);
  };
  socket.addEventListener("open", () => {
    byId("players").hidden = true;
    say("listening", { player });
    follow(player, socket);
  });
  socket.addEventListener("close", () => {
    capture.port.onmessage = null;
    byId("game").hidden = true;
    for (const track of stream.getTracks()) track.stop();
    context.close();
    say("closed");
    byId("players").hidden = false;
  });
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

function show(player, board) {
  if (!board) return;
  byId("game").hidden = false;
  const turn = byId("turn");
  const mine = board.listening === player;
  turn.textContent = board.listening ? (mine ? text("your_turn") : text("turn", { player: board.listening })) : "";
  turn.classList.toggle("mine", mine);
  const question = board.question;
  byId("question-label").textContent = question ? text("question", { number: question.number }) : "";
  byId("question").textContent = question ? question.text : "";
  const options = byId("options");
  options.replaceChildren();
  for (const option of (question && question.options) || []) {
    const item = document.createElement("li");
    item.textContent = `${option.letter}: ${option.text}`;
    item.classList.toggle("removed", option.removed);
    options.append(item);
  }
  const heard = board.heard && board.heard.player === player ? board.heard.text : "";
  byId("heard").textContent = heard ? text("heard", { text: heard }) : "";
}

async function start() {
  try {
    labels = await (await fetch("/static/labels.json")).json();
  } catch {
    labels = {};
  }
  byId("warning").textContent = text("warning");
  byId("code-form").addEventListener("submit", (event) => {
    event.preventDefault();
    code = byId("code").value.trim();
    loadPlayers();
  });
  loadPlayers();
}

start();
