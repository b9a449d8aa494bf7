// written by turnback init: turnback's plugin for OpenCode.
// It records every turn of the conversation with turnback: a snap when
// your message starts a turn, an end when the session goes idle; it runs
// /tb-undo, /tb-redo and /tb-turns for this conversation's session, and
// tells the model once what an undo or redo changed. Each hook runs
// "turnback hook opencode" with the event on stdin. Without turnback it
// says so once and OpenCode goes on. "turnback init --opencode --remove"
// takes it out.
import { spawnSync } from "node:child_process"

const BIN = "turnback"
const COMMANDS = ["tb-undo", "tb-redo", "tb-turns"]

export const TurnbackPlugin = async ({ client, directory }) => {
  let warned = false
  const children = new Set() // subagents' sessions: their work is their parent's turn
  const log = (level, message) => {
    try {
      client.app.log({ body: { service: "turnback", level, message } }).catch(() => {})
    } catch {}
  }
  // hook runs turnback's hook for one event, synchronously: "opencode
  // run" exits right after the session goes idle, without waiting for a
  // plugin. It returns the text turnback gives the model ("" for none).
  // A snap or end gives up by itself after 5 s (TURNBACK_HOOK_TIMEOUT);
  // an undo is never cut short.
  const hook = (name, fields, timeout = 60000) => {
    let r
    try {
      r = spawnSync(BIN, ["hook", "opencode"], {
        input: JSON.stringify({ hook_event_name: name, cwd: directory, ...fields }),
        encoding: "utf8",
        timeout,
        maxBuffer: 16 << 20,
      })
    } catch (e) {
      r = { error: e }
    }
    if (r.error) {
      const msg = `turnback: cannot run ${BIN} (${r.error.code || r.error.message}): turns are not recorded; install turnback or remove the plugin turnback.js`
      if (!warned) {
        console.error(msg)
        try {
          client.tui.showToast({ body: { message: msg, variant: "warning" } }).catch(() => {})
        } catch {}
      }
      warned = true
      log("warn", msg)
      return ""
    }
    if (r.stderr) log(r.status === 0 ? "info" : "warn", r.stderr.trim())
    try {
      return JSON.parse(r.stdout).hookSpecificOutput.additionalContext || ""
    } catch {
      return ""
    }
  }
  return {
    event: async ({ event }) => {
      const p = event.properties || {}
      if (event.type === "session.created" && p.info && p.info.parentID) children.add(p.info.id)
      if (event.type === "session.idle" && !children.has(p.sessionID)) hook("session.idle", { event })
    },
    "command.execute.before": async (input, output) => {
      if (!COMMANDS.includes(input.command)) return
      const text = hook("command.execute.before", { input }, 0) || `turnback did not run /${input.command}: see OpenCode's log`
      // Turnback's report replaces the command's text: you see it, and so
      // does the model. The mark keeps chat.message from making a turn.
      output.parts.splice(0, output.parts.length, { type: "text", text, metadata: { turnback: input.command } })
    },
    "chat.message": async (input, output) => {
      if (children.has(input.sessionID)) return
      // The text parts, each cut to 4096 characters: OpenCode puts an
      // attached file's content in one, and a snap keeps one line.
      const parts = output.parts.filter((p) => p.type === "text").map((p) => ({ ...p, text: String(p.text).slice(0, 4096) }))
      const text = hook("chat.message", { input, output: { message: output.message, parts } })
      const last = output.parts[output.parts.length - 1]
      if (text && last) {
        output.parts.push({ id: last.id + "tb", sessionID: last.sessionID, messageID: last.messageID, type: "text", text, synthetic: true })
      }
    },
  }
}
