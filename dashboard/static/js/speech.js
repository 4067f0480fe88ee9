// Spoken announcements through the browser's speech synthesis.
//
// Every announcement is also written to a hidden live region (#announcer), so
// screen readers hear it even with speech off, and its `data-utterance`
// attribute always holds the last text (with `data-lang`): the browser tests
// check it, since headless Chromium may have no voices at all.

import { SPEECH_LOCALES, language } from "./i18n.js";

const synth = "speechSynthesis" in window ? window.speechSynthesis : null;
let enabled = false;
let voiceName = "";

/** The last announcements, newest last (window.dashboard.spoken; tests read it). */
export const spoken = [];

export function setEnabled(on) {
  enabled = on;
  if (!on && synth) synth.cancel();
}

export function setVoice(name) {
  voiceName = name;
}

/** Voices that speak the current language (all voices if none match). */
export function voices() {
  if (!synth) return [];
  const all = synth.getVoices();
  const base = language();
  const matching = all.filter((v) => v.lang.toLowerCase().startsWith(base));
  return matching.length ? matching : all;
}

/** Fill the voice <select> and keep it filled when the browser loads its voices late. */
export function bindVoiceSelect(select, defaultLabel) {
  const fill = () => {
    const list = voices();
    select.replaceChildren(new Option(defaultLabel(), ""));
    for (const v of list) select.append(new Option(`${v.name} (${v.lang})`, v.name));
    select.value = list.some((v) => v.name === voiceName) ? voiceName : "";
    select.disabled = list.length === 0;
  };
  if (synth) synth.addEventListener("voiceschanged", fill);
  fill();
  return fill;
}

/** Announce `text` in the current language. */
export function announce(text) {
  if (!text) return;
  const region = document.getElementById("announcer");
  region.textContent = text;
  region.dataset.utterance = text;
  region.dataset.lang = language();
  spoken.push({ text, lang: language() });
  if (spoken.length > 50) spoken.shift();
  if (!enabled || !synth) return;
  const u = new SpeechSynthesisUtterance(text);
  u.lang = SPEECH_LOCALES[language()] ?? "en-GB";
  const voice = synth.getVoices().find((v) => v.name === voiceName);
  if (voice) u.voice = voice;
  synth.speak(u);
}
