// Following a game live: server-sent events, resumed after the last version seen.

export const EVENT_TYPES = [
  "GameCreated", "PlayerJoined", "GameStarted", "StartingBoatPlaced", "BoatsAdded",
  "BoatsPlaced", "EmigrationStarted", "TileDrawn", "TilePlaced", "FleetSailed",
  "ExpeditionFailed", "FleetReachedIsland", "FleetTurnedBack", "BoatsLanded",
  "RoyalIslandFounded", "NewColonyFounded", "ChainDeclaredEndless", "IslandRemoved",
  "FleetLostAtSea", "TurnEnded", "GameEnded", "DeckRevealed",
];

/** Call onEvent(version, type) for every event after ``after``; returns a stop function. */
export function follow(gameId, after, onEvent) {
  const source = new EventSource(`/api/v1/games/${gameId}/stream?after=${after}`);
  let last = after;
  const handler = (message) => {
    const version = Number(message.lastEventId);
    if (version > last) {
      last = version;
      onEvent(version, message.type);
    }
  };
  for (const type of EVENT_TYPES) source.addEventListener(type, handler);
  return () => source.close();
}
