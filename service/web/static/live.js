// Following a game live: server-sent events, resumed after the last version seen.
// When the server has no stream to spare (503 too_many_streams) or the stream fails
// for good, the page polls /events meanwhile and asks for a stream again later.
// A game that is over ends its stream with an "end" event: the page stops there.

export const EVENT_TYPES = [
  "GameCreated", "PlayerJoined", "GameStarted", "StartingBoatPlaced", "BoatsAdded",
  "BoatsPlaced", "EmigrationStarted", "TileDrawn", "TilePlaced", "FleetSailed",
  "ExpeditionFailed", "FleetReachedIsland", "FleetTurnedBack", "BoatsLanded",
  "RoyalIslandFounded", "NewColonyFounded", "ChainDeclaredEndless", "IslandRemoved",
  "FleetLostAtSea", "TurnEnded", "GameEnded", "DeckRevealed",
  "GamePaused", "GameResumed", "GameRewound", "ResultAmended",
  "TurnTimedOut", "SeatMarkedAbsent", "TimeoutStreakEnded", "SeatPlayedByBot",
  "SeatReclaimed", "PlayerResigned",
];

const POLL_MS = 2000; // between polls while there is no stream
const POLL_FOR_MS = 10000; // how long to poll before asking for a stream again

const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

/** Call onEvent(version, type) for every event after ``after``, and onStatus(state)
 * with "live", "reconnecting", "polling", "offline" or "ended"; returns a stop function. */
export function follow(gameId, after, onEvent, onStatus = () => {}) {
  let last = after;
  let source = null;
  let stopped = false;
  const deliver = (version, type) => {
    if (version > last) {
      last = version;
      onEvent(version, type);
    }
  };
  const listen = () => {
    source = new EventSource(`/api/v1/games/${gameId}/stream?after=${last}`);
    source.onopen = () => onStatus("live");
    source.onerror = () => {
      if (source.readyState === EventSource.CLOSED) {
        source.close(); // refused (503) or gone for good: poll meanwhile
        poll();
      } else {
        onStatus("reconnecting"); // the browser retries by itself
      }
    };
    source.addEventListener("end", () => {
      source.close(); // the game is over and every event came: nothing more to follow
      onStatus("ended");
    });
    for (const type of EVENT_TYPES) {
      source.addEventListener(type, (message) => deliver(Number(message.lastEventId), message.type));
    }
  };
  const poll = async () => {
    const until = Date.now() + POLL_FOR_MS;
    while (!stopped && Date.now() < until) {
      let page = null;
      try {
        const response = await fetch(`/api/v1/games/${gameId}/events?after=${last}&limit=1000`, {
          headers: { Accept: "application/json" },
        });
        page = response.ok ? await response.json() : null;
      } catch {
        page = null;
      }
      onStatus(page ? "polling" : "offline");
      if (page) for (const e of page.events) deliver(e.version, e.type);
      await sleep(POLL_MS);
    }
    if (!stopped) listen();
  };
  listen();
  return () => {
    stopped = true;
    if (source) source.close();
  };
}
