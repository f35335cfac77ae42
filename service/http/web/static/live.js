// Following a game live: server-sent events, resumed after the last version seen.
//
// A page must never show an old position without saying so. A stream can die without
// an error the browser reports (a laptop waking, a changed network, the browser's
// offline mode leave a half-open connection), so the page also listens for silence:
// the server sends a "heartbeat" event when a stream opens and after each quiet
// spell, saying how often ({"every": 15}); hearing nothing for over twice as long,
// the page takes the stream for dead. It reconnects from the last version it has,
// after fetching what it missed, and it does the same at once when the browser says
// it is back online or the tab is shown again. Meanwhile it says it may be behind.
//
// When the server has no stream to spare (503 too_many_streams) or the stream fails
// for good, the page polls /events meanwhile and asks for a stream again later.
// A game that is over ends its stream with an "end" event: the page stops there.
// A "chat" event (no id) says the game's chat moved: it is passed on to the page as a
// window event "tongiaki:chat" (chat.js reads the chat then), and every state as
// "tongiaki:live".

export const EVENT_TYPES = [
  "GameCreated", "PlayerJoined", "GameStarted", "StartingBoatPlaced", "BoatsAdded",
  "BoatsPlaced", "EmigrationStarted", "TileDrawn", "TilePlaced", "FleetSailed",
  "ExpeditionFailed", "FleetReachedIsland", "FleetTurnedBack", "BoatsLanded",
  "RoyalIslandFounded", "NewColonyFounded", "ChainDeclaredEndless", "IslandRemoved",
  "FleetLostAtSea", "TurnEnded", "GameEnded", "DeckRevealed",
  "GamePaused", "GameResumed", "GameRewound", "ResultAmended",
  "TurnTimedOut", "SeatMarkedAbsent", "TimeoutStreakEnded", "SeatPlayedByBot",
  "SeatReclaimed", "PlayerResigned",
  "TakebackRequested", "TakebackAccepted", "TakebackRefused", "TakebackWithdrawn",
  "TakebackExpired", "MovesTakenBack", "EndProposed", "EndAccepted", "EndDeclined",
  "EndProposalWithdrawn", "EndProposalExpired", "AwayAnnounced",
];

const POLL_MS = 2000; // between polls while there is no stream
const POLL_FOR_MS = 10000; // how long to poll before asking for a stream again
const WATCH_MS = 1000; // how often the page looks for silence
const GRACE_MS = 2000; // beyond twice the heartbeat's interval

const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

/** Call onEvent(version, type) for every event after ``after``, and onStatus(state)
 * with "live", "reconnecting", "silent" (no word from the server: reconnecting),
 * "offline" (the browser is), "catching-up", "polling", "ended"; returns a stop
 * function. Every state but "live" and "ended" means the page may be behind. */
export function follow(gameId, after, onEvent, onStatus = () => {}) {
  let last = after;
  let source = null;
  let stopped = false;
  let ended = false;
  let heard = Date.now(); // the stream's last word (an event, a heartbeat, its opening)
  let every = 15000; // the heartbeat's interval, as the server says
  let resyncing = null; // the catch-up under way, if any
  let status = null;
  const say = (state) => {
    if (state !== status) {
      status = state;
      onStatus(state);
      window.dispatchEvent(new CustomEvent("tongiaki:live", { detail: state }));
    }
  };
  const deliver = (version, type) => {
    if (version > last) {
      last = version;
      onEvent(version, type);
    }
  };
  const close = () => {
    if (source) source.close();
    source = null;
  };
  const listen = () => {
    close();
    if (stopped || ended) return;
    heard = Date.now();
    source = new EventSource(`/api/v1/games/${gameId}/stream?after=${last}`);
    const current = source;
    source.onopen = () => {
      heard = Date.now();
      say("live");
    };
    source.onerror = () => {
      if (current !== source) return;
      if (source.readyState === EventSource.CLOSED) {
        close(); // refused (503) or gone for good: poll meanwhile
        poll();
      } else {
        say(navigator.onLine === false ? "offline" : "reconnecting"); // the browser retries
      }
    };
    source.addEventListener("heartbeat", (message) => {
      heard = Date.now();
      try {
        const seconds = Number(JSON.parse(message.data).every);
        if (seconds > 0) every = seconds * 1000;
      } catch {
        // an older server: keep the interval we had
      }
      if (status !== "live") say("live");
    });
    source.addEventListener("chat", (message) => {
      heard = Date.now();
      window.dispatchEvent(new CustomEvent("tongiaki:chat", { detail: message.data }));
    });
    source.addEventListener("end", () => {
      close(); // the game is over and every event came: nothing more to follow
      ended = true;
      say("ended");
    });
    for (const type of EVENT_TYPES) {
      source.addEventListener(type, (message) => {
        heard = Date.now();
        deliver(Number(message.lastEventId), message.type);
      });
    }
  };
  /** Fetch every event after the last one here (a page at a time, again and again
   * until the server answers), then listen again. */
  const resync = (why) => {
    if (stopped || ended) return Promise.resolve();
    if (resyncing) return resyncing;
    close();
    say(why);
    resyncing = (async () => {
      for (;;) {
        try {
          for (;;) {
            const response = await fetch(`/api/v1/games/${gameId}/events?after=${last}&limit=1000`, {
              headers: { Accept: "application/json" },
              cache: "no-store",
            });
            if (!response.ok) throw new Error(String(response.status));
            const page = await response.json();
            if (page.events.length) say("catching-up");
            for (const e of page.events) deliver(e.version, e.type);
            if (!page.has_more) break;
          }
          break;
        } catch {
          say(navigator.onLine === false ? "offline" : "reconnecting");
          await sleep(POLL_MS);
          if (stopped) return;
        }
      }
      resyncing = null;
      listen();
    })();
    return resyncing;
  };
  const poll = async () => {
    const until = Date.now() + POLL_FOR_MS;
    while (!stopped && Date.now() < until) {
      let page = null;
      try {
        const response = await fetch(`/api/v1/games/${gameId}/events?after=${last}&limit=1000`, {
          headers: { Accept: "application/json" },
          cache: "no-store",
        });
        page = response.ok ? await response.json() : null;
      } catch {
        page = null;
      }
      say(page ? "polling" : "offline");
      if (page) for (const e of page.events) deliver(e.version, e.type);
      await sleep(POLL_MS);
    }
    if (!stopped) listen();
  };
  // silence: a stream that says nothing for over twice its heartbeat is taken for dead
  const watch = setInterval(() => {
    if (stopped || ended || !source || resyncing) return;
    if (Date.now() - heard > 2 * every + GRACE_MS) resync("silent");
  }, WATCH_MS);
  const offline = () => {
    if (stopped || ended) return;
    close();
    say("offline");
  };
  const online = () => resync("reconnecting");
  const shown = () => {
    if (document.visibilityState !== "visible" || stopped || ended) return;
    // a tab shown again may have slept: check at once rather than wait for silence
    if (!source || source.readyState !== EventSource.OPEN || Date.now() - heard > every + GRACE_MS) {
      resync("reconnecting");
    }
  };
  window.addEventListener("offline", offline);
  window.addEventListener("online", online);
  document.addEventListener("visibilitychange", shown);
  if (navigator.onLine === false) say("offline");
  listen();
  return () => {
    stopped = true;
    clearInterval(watch);
    window.removeEventListener("offline", offline);
    window.removeEventListener("online", online);
    document.removeEventListener("visibilitychange", shown);
    close();
  };
}
