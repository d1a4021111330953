// The bounds every payload is validated against (spec: "Who may send what", "Resync round/Bounds", "Frame",
// "Players and slots"). Counts of characters are Unicode code points; counts of bytes are decoded bytes.
// Numbers the spec gives are the spec's; the others are this project's choices (docs/DECISIONS.md).

/** Payload bounds. */
export const LIMITS = {
  /** Chat.text, code points (spec: text ≤ 500). */
  chatChars: 500,
  /** BuildVeto.why, code points (spec: why ≤ 300). */
  whyChars: 300,
  /** Data of one chunk (ResyncChunk, ResyncUpload, ReportBundle, ReportPart): 1 to 256 KiB (spec: Bounds). */
  chunkBytes: 262_144,
  /** Chunks of one transfer: 1 to 2048 (spec: Bounds). */
  maxChunks: 2048,
  /** Join.name: 1 to 32 code points, no control characters, not blank. */
  nameChars: 32,
  /** Names the host sends (roster, from-names): a clash becomes name#id, so 32 + "#65534". */
  displayNameChars: 38,
  /** FeverLink3 and mod version strings. */
  versionChars: 64,
  /** Free-text details (Reject/Kicked detail, SaveDone, ReplayFailed, ActionRefused): longer ones are cut. */
  detailChars: 1000,
  /** Reason tokens (Reject/Kicked reason). */
  reasonChars: 64,
  /** ReportRequest.note. */
  noteChars: 1000,
  /** Save names the host chooses (ResyncSave/ResyncLoad name). */
  saveNameChars: 128,
  /** Hello.save, the save a game loaded (a name or a path). */
  pathChars: 1024,
  /** Mod ids and capability names. */
  idChars: 128,
  /** Entries of a mod list (Join.mods, SaveDone.mods, each list of a mod difference). */
  maxMods: 512,
  /** Capabilities a joiner announces (Join.caps). */
  maxCaps: 32,
  /** Lists and maps keyed by player (roster, stalled, loading, PlayerSet only, Ping rtt/off). */
  maxPlayers: 1024,
  /** Highest player id: 0 = the host's game, 1..65534 players; 65535 is "not yet assigned" (frames only). */
  maxPlayerId: 65_534,
  /** Checksum part names and authority value names. */
  partNameChars: 128,
  /** A checksum part's hash when it is a string (freeq = <epoch>|<n>:<h>|…). */
  partValueChars: 256,
  /** Parts of one checksum report (townBuildings:<town> gives one part per town). */
  maxParts: 8192,
  /** Action.category as sent (any string; the host normalises it). */
  categoryChars: 64,
  /** Session.lead and the clock's `ahead`, in steps (the host clamps lead to 2..32). */
  maxSteps: 255,
  /** ReportAsk.maxBytes: at most a whole transfer. */
  maxReportBytes: 262_144 * 2048,
  /** ReportAsk.salt. */
  saltChars: 128,
  /** Challenge.nonce and Welcome.resume.token. */
  nonceBytes: 16,
  /** Join.proof and Join.resume.mac (HMAC-SHA256). */
  macBytes: 32,
  /** Action.body: nesting depth. */
  bodyDepth: 64,
  /** The largest payload a frame carries: 1 048 576 − 12 − 16 (spec: Frame). */
  payloadBytes: 1_048_548,
} as const;
