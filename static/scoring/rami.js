/* Progressive enhancement for the Rami score keeper; every page works without this file.
 *
 * - The card picker: tapping a rank adds a card to the hand's text field (in the card
 *   notation, "AH JK 5C"), a suit button gives the last card its suit, tapping a chosen card
 *   removes it. The text field stays the one source of truth, and each change fires a
 *   "picked" event that htmx turns into a preview request (the points come from the server).
 * - The start form: the target line follows the number of names typed (looked up among the
 *   lines the server wrote, not computed), and players 3 to 6 get a button to take them off.
 * - Live updates: every 2 s, while the page is visible, the poller asks whether the game has
 *   changed (htmx swaps nothing on "204 No Content"); at once when the page is shown again.
 *   Once something is typed in the round form, #typing tells the server to leave it alone.
 * - Sharing: copy a link, or hand it to the phone's share sheet where there is one.
 * - The language switcher submits itself when a language is picked.
 * - A save that fails (no answer, or an error such as a 503 while the database is away): htmx
 *   swaps nothing, so the form keeps what was typed; its #round-notice says to tap Save again,
 *   in the page's language (the messages are data attributes of <body>, base.html).
 */
(function () {
  "use strict";

  var SUIT_SYMBOLS = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };
  var RED = { H: true, D: true };

  function cardsOf(field) {
    return field.value.trim().toUpperCase().split(/\s+/).filter(Boolean);
  }

  function split(code) {
    if (code === "JK") return { rank: "JK", suit: "" };
    var last = code.slice(-1);
    if (SUIT_SYMBOLS[last] && code.length > 1) return { rank: code.slice(0, -1), suit: last };
    return { rank: code, suit: "" };
  }

  function fieldOf(picker) {
    return document.getElementById(picker.dataset.field);
  }

  function rankLabel(picker, rank) {
    var button = picker.querySelector('.rank[data-rank="' + rank + '"]');
    return button ? button.textContent : rank;
  }

  function render(picker) {
    var field = fieldOf(picker);
    var chosen = picker.querySelector(".chosen");
    if (!field || !chosen) return;
    chosen.replaceChildren();
    cardsOf(field).forEach(function (code, index) {
      var card = split(code);
      var chip = document.createElement("button");
      chip.type = "button";
      chip.className = "chip card" + (RED[card.suit] ? " card-red" : "") + (card.rank === "JK" ? " card-joker" : "");
      chip.dataset.index = String(index);
      chip.textContent = rankLabel(picker, card.rank) + (SUIT_SYMBOLS[card.suit] || "");
      chip.setAttribute("aria-label", picker.dataset.removeLabel.replace("%s", chip.textContent));
      chosen.appendChild(chip);
    });
  }

  function update(picker, cards) {
    var field = fieldOf(picker);
    field.value = cards.join(" ");
    render(picker);
    field.dispatchEvent(new Event("picked", { bubbles: true }));
  }

  // Times of the history in the phone's own time zone (the server writes them in UTC), in the
  // page's language.
  function localTime(time) {
    var when = new Date(time.getAttribute("datetime"));
    if (isNaN(when.getTime()) || !window.Intl) return;
    time.textContent = when.toLocaleString(document.documentElement.lang || undefined, {
      dateStyle: "medium",
      timeStyle: "short",
    });
  }

  function init(root) {
    root.querySelectorAll("time.local-time").forEach(localTime);
    root.querySelectorAll(".picker").forEach(render);
    root.querySelectorAll(".start-form").forEach(initStartForm);
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest(".picker button");
    if (!button) return;
    var picker = button.closest(".picker");
    var cards = cardsOf(fieldOf(picker));
    if (button.classList.contains("rank")) {
      cards.push(button.dataset.rank);
    } else if (button.classList.contains("suit")) {
      var last = cards.length ? split(cards[cards.length - 1]) : null;
      if (!last || last.rank === "JK") return;
      cards[cards.length - 1] = last.rank + button.dataset.suit;
    } else if (button.classList.contains("chip")) {
      cards.splice(Number(button.dataset.index), 1);
    }
    update(picker, cards);
  });

  document.addEventListener("input", function (event) {
    if (!event.target.classList.contains("cards-text")) return;
    document.querySelectorAll('.picker[data-field="' + event.target.id + '"]').forEach(render);
  });

  function initStartForm(form) {
    if (form.dataset.ready) return;
    form.dataset.ready = "1";
    var rows = Array.prototype.slice.call(form.querySelectorAll(".name-row"));
    rows.forEach(function (row, index) {
      if (index < 2) return;
      // Players 3 to 6 can be taken off again: the name is emptied.
      var input = row.querySelector("input");
      var remove = document.createElement("button");
      remove.type = "button";
      remove.className = "remove-player link-button";
      remove.textContent = "\u00d7";
      remove.setAttribute("aria-label", form.dataset.removeLabel + " " + row.querySelector("label").firstChild.textContent.trim());
      remove.addEventListener("click", function () {
        input.value = "";
        input.dispatchEvent(new Event("input", { bubbles: true }));
      });
      row.appendChild(remove);
    });
    function refresh() {
      var filled = rows.filter(function (row) { return row.querySelector("input").value.trim(); }).length;
      var players = filled >= 2 ? Math.min(6, filled) : 4;
      // The house rules may fix the target or change it per opponent: the number follows.
      var fixed = form.querySelector("#id_target");
      var perOpponent = form.querySelector("#id_target_per_opponent");
      form.querySelectorAll(".target-for").forEach(function (line) {
        var count = Number(line.dataset.players);
        line.hidden = count !== players;
        if (!fixed || !perOpponent) return;
        // The line says the server's number (a target is 50 or more, never a player count).
        var target = String(Number(fixed.value) || (Number(perOpponent.value) || 100) * (count - 1));
        line.textContent = line.textContent.replace(line.dataset.target, target);
        line.dataset.target = target;
      });
    }
    form.addEventListener("input", refresh);
  }

  var POLL_EVERY_MS = 2000;

  function poll() {
    if (document.visibilityState !== "visible" || !window.htmx) return;
    document.querySelectorAll(".poller").forEach(function (poller) {
      if (!poller.classList.contains("htmx-request")) window.htmx.trigger(poller, "rami:poll");
    });
  }
  window.setInterval(poll, POLL_EVERY_MS);
  document.addEventListener("visibilitychange", poll);

  function markTyping(event) {
    var form = event.target.closest && event.target.closest("#round-entry #round-form");
    var flag = document.getElementById("typing");
    if (form && flag) flag.value = "1";
  }
  document.addEventListener("input", markTyping);
  document.addEventListener("change", markTyping);
  document.addEventListener("picked", markTyping);

  function initSharing(root) {
    root.querySelectorAll(".copy-link").forEach(function (button) {
      if (!navigator.clipboard) return;
      button.hidden = false;
      button.addEventListener("click", function () {
        var field = document.getElementById(button.dataset.copy);
        navigator.clipboard.writeText(field.value).then(function () {
          button.textContent = button.dataset.done;
        });
      });
    });
    root.querySelectorAll(".share-link-button").forEach(function (button) {
      if (!navigator.share) return;
      button.hidden = false;
      button.addEventListener("click", function () {
        navigator.share({ title: button.dataset.title, url: button.dataset.url }).catch(function () {});
      });
    });
    root.querySelectorAll(".link-text").forEach(function (field) {
      field.addEventListener("focus", function () { field.select(); });
    });
  }

  document.addEventListener("change", function (event) {
    if (event.target.id === "language-select") event.target.form.requestSubmit();
  });

  function saveFailed(message) {
    return function (event) {
      // Only the round form's own request (its save); not a preview, a poll or an undo.
      var form = event.detail && event.detail.elt;
      if (!form || !form.matches || !form.matches("form")) return;
      var notice = form.querySelector("#round-notice");
      var text = document.body.dataset[message];
      if (!notice || !text) return;
      notice.className = "round-notice banner";
      notice.setAttribute("role", "alert");
      notice.textContent = text;
    };
  }
  document.addEventListener("htmx:sendError", saveFailed("saveUnreachable"));
  document.addEventListener("htmx:responseError", saveFailed("saveBusy"));

  document.addEventListener("DOMContentLoaded", function () {
    init(document);
    initSharing(document);
  });
  // New content from htmx (a saved round brings a fresh form) gets its pickers too.
  document.addEventListener("htmx:load", function (event) { init(event.detail.elt); });
})();
