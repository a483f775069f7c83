/* Progressive enhancement for the Rami score keeper; every page works without this file.
 *
 * - The card picker: tapping a rank adds a card to the hand's text field (in the card
 *   notation, "AH JK 5C"), a suit button gives the last card its suit, tapping a chosen card
 *   (or, on the table's one keyboard, the take-back key) removes it. On a phone one keyboard
 *   types the hand of the row chosen last. The text field stays the
 *   one source of truth, and each change fires a "picked" event that htmx turns into a
 *   preview request (the points come from the server).
 * - The start form: players 3 to 6 get a button to take them off. (The target line is the
 *   server's, drawn again through htmx as names and rules are typed.)
 * - Live updates (the protocol: docs/architecture.md, "Live updates"): the stream of the
 *   poller's data-live, and without one the version check every 2 s; the poller then asks
 *   what changed. Once something is typed in the round form, #typing tells the server to
 *   leave it alone (an answer drawn before, arriving after, is dropped and asked for again).
 *   What an answer changes is the server's to say (game.html): this file only keeps time. A
 *   page on its way to another (Rematch tapped) asks no more and takes no answer still on its
 *   way.
 * - Sharing: copy a link, or hand it to the phone's share sheet where there is one.
 * - After a save (or an Undo), the answer is put in view (its hx-swap shows the new totals
 *   and the saved round's line, or after the Undo of a save the round back in the form) and
 *   the focus moved there; here, the first error or the notice that another phone was first
 *   is brought into view instead.
 * - A folded part keeps its state across live updates; a link's #fragment opens the part it
 *   points into.
 * - The language switcher submits itself when a language is picked.
 * - A save that fails (no answer, or an error such as a 503 while the database is away): htmx
 *   swaps nothing, so the form keeps what was typed, and its #round-notice says so in the
 *   page's language (the messages are data attributes of <body>, base.html). The same form,
 *   with the same key (the round is recorded once), is sent again when the phone is back
 *   online, when the page is shown again, every 5 s (or after the server's Retry-After), until
 *   it is recorded or the player changes the round; a refusal (a 4xx) is not sent again.
 *   After a few error answers in a row, the notice says that the server could not save it
 *   (the round kept, still sent again).
 * - A page whose game or table is not on the server (the stream's "gone", a poll's 404) says
 *   so at the foot of the screen until it is back.
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
    return picker.dataset.field ? document.getElementById(picker.dataset.field) : null;
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

  // Times of the history (and dates of a table's games) in the phone's own time zone (the
  // server writes them in UTC), in the page's language as the phone writes it: a phone set to
  // English in Britain (en-GB) reads an English page's times on 24 hours and its dates day
  // first, one in the United States on 12 hours. One way of writing a date everywhere.
  function pageLocale() {
    var lang = document.documentElement.lang || "";
    var base = lang.split("-")[0].toLowerCase();
    var own = (navigator.languages || [navigator.language]).filter(function (tag) {
      return tag && tag.split("-")[0].toLowerCase() === base;
    })[0];
    return own || lang || undefined;
  }
  function localTime(time) {
    var when = new Date(time.getAttribute("datetime"));
    if (isNaN(when.getTime()) || !window.Intl) return;
    var style = { dateStyle: "medium" };
    if (time.classList.contains("local-time")) style.timeStyle = "short";
    try {
      time.textContent = when.toLocaleString(pageLocale(), style);
    } catch (error) { // a tag the browser does not know
      time.textContent = when.toLocaleString(document.documentElement.lang || undefined, style);
    }
  }

  // One keyboard for the table (_round_form.html's .table-keys, shown by rami.css on a phone,
  // whatever the number of players): it types the hand of the row chosen last, whose "Type
  // this hand" (.hand-pick) is pressed. The first hand to type is the first row's but the
  // winner's; a tap on a row, on its cards or in its fields chooses it; the winner's row is
  // passed over.
  function rowsOf(form) {
    return Array.prototype.slice.call(form.querySelectorAll(".hands > .hand"));
  }
  function wentOut(row) {
    return !!row.querySelector(".out-choice input:checked");
  }
  function choose(row) {
    var form = row.closest("form");
    var keys = form && form.querySelector(".table-keys");
    var pick = row.querySelector(".hand-pick");
    var field = row.querySelector(".cards-text");
    if (!keys || !pick || !field) return;
    rowsOf(form).forEach(function (other) {
      var button = other.querySelector(".hand-pick");
      if (button) button.setAttribute("aria-pressed", String(other === row));
    });
    keys.dataset.field = field.id;
    keys.setAttribute("aria-labelledby", pick.getAttribute("aria-labelledby"));
  }
  function chosenRow(form) {
    var pressed = form.querySelector('.hand-pick[aria-pressed="true"]');
    return pressed && pressed.closest(".hand");
  }
  function chooseFirst(form) {
    var rows = rowsOf(form).filter(function (row) { return !wentOut(row); });
    var wrong = rows.filter(function (row) { return row.querySelector("[aria-invalid=true]"); });
    var row = wrong[0] || rows[0];
    if (row) choose(row);
  }
  document.addEventListener("change", function (event) {
    // Who went out needs no hand: the keyboard goes on to the first who does.
    var form = event.target.closest && event.target.closest("form");
    if (!form || !form.querySelector(".table-keys") || !event.target.closest(".out-choice")) return;
    var row = chosenRow(form);
    if (!row || wentOut(row)) chooseFirst(form);
  });
  document.addEventListener("focusin", function (event) {
    var row = event.target.closest && event.target.closest(".hand");
    if (row && event.target.matches(".value-input, .not-opened input") && !wentOut(row)) choose(row);
  });

  function init(root) {
    root.querySelectorAll("time.local-time, time.local-date").forEach(localTime);
    root.querySelectorAll(".picker").forEach(render);
    root.querySelectorAll(".start-form").forEach(initStartForm);
    var forms = root.matches && root.matches("form") ? [root] : [];
    forms.concat(Array.prototype.slice.call(root.querySelectorAll("form"))).forEach(function (form) {
      if (form.querySelector(".table-keys")) chooseFirst(form);
    });
  }

  document.addEventListener("click", function (event) {
    var pick = event.target.closest(".hand-pick");
    if (pick) return choose(pick.closest(".hand"));
    var button = event.target.closest(".picker button");
    if (!button) return;
    var field = fieldOf(button.closest(".picker"));
    if (!field) return;
    // The row's own picker shows the cards, whichever keyboard typed them.
    var row = field.closest(".hand");
    var picker = row.querySelector(".picker");
    var cards = cardsOf(field);
    if (button.classList.contains("rank")) {
      cards.push(button.dataset.rank);
    } else if (button.classList.contains("suit")) {
      var last = cards.length ? split(cards[cards.length - 1]) : null;
      if (!last || last.rank === "JK") return;
      cards[cards.length - 1] = last.rank + button.dataset.suit;
    } else if (button.classList.contains("take-back")) {
      if (!cards.length) return;
      cards.pop();
    } else if (button.classList.contains("chip")) {
      cards.splice(Number(button.dataset.index), 1);
      choose(row);
    }
    update(picker, cards);
  });

  document.addEventListener("input", function (event) {
    if (!event.target.classList.contains("cards-text")) return;
    document.querySelectorAll('.hand .picker[data-field="' + event.target.id + '"]').forEach(render);
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
      // "Remove player 3": the seat's number after words that each language declines as it
      // needs ("Odebrat hráče 3"), not the label "Player 3" after a verb.
      remove.setAttribute("aria-label", form.dataset.removeLabel + " " + (index + 1));
      remove.addEventListener("click", function () {
        input.value = "";
        input.dispatchEvent(new Event("input", { bubbles: true }));
      });
      row.appendChild(remove);
    });
  }

  var POLL_EVERY_MS = 2000;

  // A page on its way to another (a form sent without htmx, such as Rematch, or the page
  // being left) asks no more and takes no answer of a live update still on its way: a poll
  // of the old game that already sees the rematch would otherwise send the phone to the new
  // game a second time. Only for a moment: a form whose answer leaves the page where it is (a
  // download) brings the live updates back.
  var LEAVING_FOR_MS = 10000;
  var leaving = null;
  function isLeaving() { return leaving !== null && Date.now() - leaving < LEAVING_FOR_MS; }
  document.addEventListener("submit", function (event) {
    // htmx's own forms have had their default prevented by now: they stay on the page.
    if (!event.defaultPrevented) leaving = Date.now();
  });
  window.addEventListener("pagehide", function () { leaving = Date.now(); });
  window.addEventListener("pageshow", function () { leaving = null; });
  function isPoll(event) {
    var elt = event.detail && event.detail.elt;
    return !!(elt && elt.classList && elt.classList.contains("poller"));
  }
  document.addEventListener("htmx:beforeRequest", function (event) {
    if (isPoll(event) && isLeaving()) event.preventDefault();
  });
  document.addEventListener("htmx:beforeOnLoad", function (event) {
    if (isPoll(event) && isLeaving()) event.preventDefault();
  });

  function poll() {
    if (document.visibilityState !== "visible" || !window.htmx || isLeaving()) return;
    var poller = document.querySelector(".poller");
    if (poller) check(poller);
  }

  // A page without a stream checks its version first (docs/architecture.md, "A page without a
  // stream"). One told of a newer version than it shows (by its stream, before it broke) pulls
  // at once: no check vouches for an older one.
  var checking = false;
  function check(poller) {
    var version = Number(poller.dataset.version || 0);
    if (!poller.dataset.live || !window.fetch || announced > version) {
      window.htmx.trigger(poller, "rami:poll");
      return;
    }
    if (checking) return;
    checking = true;
    var address = poller.dataset.live.split("?")[0] + "/version?v=" + version;
    window.fetch(address, { cache: "no-store", credentials: "same-origin" }).then(function (answer) {
      checking = false;
      if (answer.status === 204 && Number(poller.dataset.version || 0) === version) {
        // As a poll answered 204: the game is there, and the server answers.
        pageNotice(null);
        heard(true);
        return;
      }
      window.htmx.trigger(poller, "rami:poll");
    }, function () {
      // No answer: the poll finds out what is wrong, and the page says so.
      checking = false;
      window.htmx.trigger(poller, "rami:poll");
    });
  }

  // The stream: while it is open, nothing runs on the clock. One that was open and broke (the
  // server restarted) comes back by itself within its retry and tells the current version at
  // once: the clock waits STREAM_AWAY_MS for it, so that a restart does not have every phone
  // polling the new server. One refused for good is tried again when the page is shown again.
  var STREAM_AWAY_MS = 20000;
  var announced = 0; // the newest version the stream told of
  var stream = null;
  var streamOpen = false;
  var streamBroke = 0; // when an open stream last broke
  function clockPolls() {
    return !streamOpen && !(stream && Date.now() - streamBroke < STREAM_AWAY_MS);
  }
  function openStream() {
    var poller = document.querySelector(".poller[data-live]");
    if (stream || !poller || !window.EventSource) return;
    stream = new EventSource(poller.dataset.live);
    // Open once its first event (the current version) has come: a proxy may pass a stream's
    // headers and hold back the rest. Said on <html data-stream="open|closed">, for the
    // curious and the tests.
    stream.addEventListener("error", function () {
      if (streamOpen) streamBroke = Date.now();
      lost();
      streamOpen = false;
      document.documentElement.dataset.stream = "closed";
      if (stream && stream.readyState === EventSource.CLOSED) stream = null;
    });
    stream.addEventListener("version", function (event) {
      streamOpen = true;
      document.documentElement.dataset.stream = "open";
      announced = Math.max(announced, Number(event.data));
      pageNotice(null);
      heard(true);
      pull();
    });
    // The game (or table) is not on the server: deleted, or on its way back from a backup. The
    // stream stays open and tells its version once it is back.
    stream.addEventListener("gone", function () {
      streamOpen = true;
      heard(false);
      pageNotice("gone");
    });
  }

  // What the page says of the game or table it follows (base.html's #page-notice), at the foot
  // of the screen: that it is not on the server just now (the stream's "gone", or a poll
  // answered 404), until it is back.
  function pageNotice(message) {
    var notice = document.getElementById("page-notice");
    if (!notice) return;
    var text = (message && document.body.dataset[message]) || "";
    if (notice.textContent !== text) notice.textContent = text;
    notice.hidden = !text;
  }

  // The server away: the stream broke, or a poll got no answer (or a 5xx), and nothing came
  // from the server for AWAY_SAID_AFTER_MS: the page says it is reconnecting, rather than
  // looking live; the first answer after that says it is back, for BACK_SHOWN_MS.
  var AWAY_SAID_AFTER_MS = 4000;
  var BACK_SHOWN_MS = 4000;
  var awayTimer = null;
  var away = false;
  function lost() {
    if (awayTimer || away || isLeaving()) return;
    awayTimer = window.setTimeout(function () {
      awayTimer = null;
      away = true;
      pageNotice("away");
    }, AWAY_SAID_AFTER_MS);
  }
  function heard(sayBack) {
    window.clearTimeout(awayTimer);
    awayTimer = null;
    if (!away) return;
    away = false;
    if (!sayBack) return;
    pageNotice("back");
    window.setTimeout(function () {
      var notice = document.getElementById("page-notice");
      if (notice && notice.textContent === document.body.dataset.back) pageNotice(null);
    }, BACK_SHOWN_MS);
  }

  // The pull of the versions the stream announced: one poll for the newest, sent when no other
  // request of the page is on its way (a save's answer may bring it anyway; a poll sent before
  // the change may be answered without it), so that the check runs again after each answer.
  // A poll sent after the announced version was committed brings it (Django reads the
  // database, never the live reader): at most one per version.
  var askedFor = 0;
  function pull() {
    var poller = document.querySelector(".poller");
    if (!poller || !window.htmx || isLeaving()) return;
    if (announced <= Number(poller.dataset.version || 0) || askedFor >= announced) return;
    if (document.querySelector(".htmx-request")) return;
    askedFor = announced;
    window.htmx.trigger(poller, "rami:poll");
  }
  document.addEventListener("htmx:afterSettle", function () { window.setTimeout(pull, 0); });

  // The answer to the phone's own tap (#answer: "Round 9 saved", "... was saved on another
  // phone, just as you typed it", a refusal) stays until its next tap or the next change of the
  // game (below): a live update that brings the whole board (#live) brings an empty #answer,
  // and the one shown is put back.
  var answerShown = null; // { answer, xhr } while a live update is swapped in
  document.addEventListener("htmx:beforeOnLoad", function (event) {
    var answer = isPoll(event) && document.getElementById("answer");
    answerShown = answer ? { answer: answer, xhr: event.detail.xhr } : null;
  });
  document.addEventListener("htmx:afterSwap", function (event) {
    if (!answerShown || event.detail.xhr !== answerShown.xhr) return;
    var place = document.getElementById("answer");
    if (place && place !== answerShown.answer) place.replaceWith(answerShown.answer);
    answerShown = null;
  });
  // The answer goes, its offer (an Undo, a round to save again) with it, once the page shows a
  // later version of the game than the one the answer was drawn at: another change has landed
  // since (a round saved on another phone, a player who joined, a game restored), and "Round 4
  // saved." would be read as the round just saved.
  function dropStaleAnswer() {
    var answer = document.getElementById("answer");
    var poller = document.querySelector(".poller");
    if (!answer || !poller || !answer.dataset.version || !answer.children.length) return;
    if (Number(poller.dataset.version) <= Number(answer.dataset.version)) return;
    answer.replaceChildren();
  }
  // A #changes answer swaps out of band only; a #live one settles.
  document.addEventListener("htmx:afterOnLoad", dropStaleAnswer);
  document.addEventListener("htmx:afterSettle", dropStaleAnswer);
  // A folded part (a <details> with an id: a table's head to head, its games, its members)
  // stays open or folded as the reader left it when a live update draws it again.
  // A form someone has typed in, on a page that follows its game or table (base.html's
  // #followed: the history, the players, a round, the rules), stays as typed when a live update
  // draws the page again: its fresh copy, by its id, is told to keep it (htmx's hx-preserve).
  document.addEventListener("htmx:oobBeforeSwap", function (event) {
    var fresh = event.detail.fragment;
    if (!fresh || !fresh.querySelectorAll) return;
    fresh.querySelectorAll("details[id]").forEach(function (fold) {
      var shown = document.getElementById(fold.id);
      if (shown && shown.tagName === "DETAILS") fold.open = shown.open;
    });
    document.querySelectorAll("#followed form[data-typed]").forEach(function (form) {
      var copy = fresh.querySelector("#" + window.CSS.escape(form.id));
      if (copy) copy.setAttribute("hx-preserve", "true");
    });
  });
  function markTyped(event) {
    var form = event.target.closest && event.target.closest("#followed form[id]");
    if (form) form.dataset.typed = "1";
  }
  document.addEventListener("input", markTyped);
  document.addEventListener("change", markTyped);
  document.addEventListener("picked", markTyped);
  // A link to a part inside a folded one (#members after a member's change, #played-title
  // after "Show all games") opens it.
  function openTarget() {
    var target = window.location.hash && document.getElementById(window.location.hash.slice(1));
    var fold = target && target.closest("details");
    if (fold && !fold.open) {
      fold.open = true;
      target.scrollIntoView();
    }
  }
  openTarget();
  window.addEventListener("hashchange", openTarget);
  // A live update asked for before anything was typed brings a fresh round form (#live) or
  // the next round's heading (#changes); a tap made while it was on its way (the #typing flag
  // set since) would be lost under it. That answer is dropped and the update asked for again,
  // as typing: what was tapped stays, with the notice of what changed.
  var typingAsked = "";
  var droppedForTyping = null;
  function typingNow() {
    var flag = document.getElementById("typing");
    return flag ? flag.value : "";
  }
  document.addEventListener("htmx:beforeRequest", function (event) {
    if (isPoll(event)) typingAsked = typingNow();
  });
  document.addEventListener("htmx:beforeOnLoad", function (event) {
    if (!isPoll(event) || typingAsked === "1" || typingNow() !== "1") return;
    event.preventDefault();
    droppedForTyping = event.detail.xhr;
    askedFor = 0;
    var poller = event.detail.elt;
    window.setTimeout(function () { window.htmx.trigger(poller, "rami:poll"); }, 0);
  });
  document.addEventListener("htmx:afterRequest", function (event) {
    // A poll that failed (no answer, or an error) is asked again a moment later.
    var failed = isPoll(event) && !event.detail.successful && event.detail.xhr !== droppedForTyping;
    if (failed) askedFor = 0;
    if (isPoll(event) && event.detail.xhr) {
      var status = event.detail.xhr.status;
      if (status === 0 || status >= 500) {
        lost();
      } else {
        if (status === 404) pageNotice("gone");
        else if (event.detail.successful) pageNotice(null);
        heard(status !== 404);
      }
    }
    window.setTimeout(pull, failed ? 1000 : 0);
  });
  window.setInterval(function () { if (clockPolls()) poll(); }, POLL_EVERY_MS);
  function shownAgain() {
    if (document.visibilityState !== "visible") return;
    openStream();
    poll();
  }
  document.addEventListener("visibilitychange", shownAgain);
  window.addEventListener("pageshow", function (event) { if (event.persisted) shownAgain(); });
  document.addEventListener("DOMContentLoaded", openStream);

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

  // A save that fails keeps the round and sends it again by itself: the same form, so the
  // same key, which the server records once however often it arrives (the answer to the
  // first send may be the one that was lost). Only one round form waits at a time.
  var RETRY_EVERY_MS = 5000;
  // After this many failed sends in a row with an answer (a 5xx), the notice says that the
  // server could not save the round, rather than that it is busy; the phone goes on trying.
  var FAILING_AFTER = 3;
  var waiting = null; // { form, timer, unreachable, failures } while a failed save waits

  function roundSave(event) {
    // Only the round form's own request (its save); not a preview, a poll or an undo.
    var form = event.detail && event.detail.elt;
    if (!form || !form.matches || !form.matches("form#round-form")) return null;
    return form.querySelector("#round-notice") ? form : null;
  }

  // `show`: brought into view (the notice is at the top of the form, Save at its bottom); not
  // while the player is typing further down.
  function say(form, message, show) {
    var notice = form.querySelector("#round-notice");
    var text = document.body.dataset[message];
    // The same words again are not announced again at every retry.
    if (!notice || !text || notice.textContent === text) return;
    notice.className = "round-notice banner";
    notice.setAttribute("role", "alert");
    notice.textContent = text;
    if (show) notice.scrollIntoView({ block: "nearest" });
  }

  function stopRetrying() {
    if (waiting) window.clearTimeout(waiting.timer);
    waiting = null;
  }

  function retryIn(form, delay, unreachable, failures) {
    stopRetrying();
    waiting = {
      form: form,
      timer: window.setTimeout(resend, delay),
      unreachable: unreachable,
      failures: failures || 0
    };
  }

  // The server's Retry-After (seconds or a date), within reason; else the usual pause.
  function retryDelay(xhr) {
    var header = xhr && xhr.getResponseHeader("Retry-After");
    if (!header) return RETRY_EVERY_MS;
    var delay = /^\s*\d+\s*$/.test(header) ? Number(header) * 1000 : Date.parse(header) - Date.now();
    return isNaN(delay) ? RETRY_EVERY_MS : Math.min(Math.max(delay, 1000), 60000);
  }

  // Sent again as a tap on Save would send it (the button's action=save included). Never a
  // second request while one is on its way, never while the phone knows it is offline (its
  // "online" event comes first), never once the form is gone: a recorded round brings a fresh
  // form with a new key.
  function resend() {
    if (!waiting) return;
    var form = waiting.form;
    var button = form.querySelector("button[type=submit][name=action][value=save]");
    if (!document.body.contains(form) || !button) return stopRetrying();
    if (form.classList.contains("htmx-request") || navigator.onLine === false) {
      return retryIn(form, RETRY_EVERY_MS, waiting.unreachable, waiting.failures);
    }
    window.clearTimeout(waiting.timer);
    button.click();
  }

  function saveFailed(message) {
    return function (event) {
      var form = roundSave(event);
      if (!form) return;
      var xhr = event.detail.xhr;
      // Refused (a 4xx; the 409 of a round another phone took is swapped in, not an error):
      // the same request would be refused again.
      if (xhr && xhr.status >= 400 && xhr.status < 500) {
        if (waiting && waiting.form === form) stopRetrying();
        say(form, "saveRefused", true);
        return;
      }
      var offline = navigator.onLine === false;
      var unreachable = message === "saveUnreachable" || offline;
      var failures = (waiting && waiting.form === form ? waiting.failures : 0) + (unreachable ? 0 : 1);
      // The phone offline, or online with no answer from the server (down, or no way to it):
      // each is said as it is. A server that answers with an error again and again is not
      // merely busy: said so.
      var said = offline ? "saveOffline" : unreachable ? "saveUnreachable"
        : failures >= FAILING_AFTER ? "saveFailing" : message;
      say(form, said, true);
      retryIn(form, unreachable ? RETRY_EVERY_MS : retryDelay(xhr), unreachable, failures);
    };
  }
  document.addEventListener("htmx:sendError", saveFailed("saveUnreachable"));

  // A preview that got no answer (the phone offline, the server away): each row shows its
  // hand's value, worked out here from the game's card values (the .previewer's data), as the
  // cards or the value typed say it; the next answer of the server, the one judge of a round's
  // points (the never-opened penalty, a hand rummy, a cap), replaces it.
  var RANKS = { "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9, "10": 10 };
  function handValue(row, values) {
    var typed = row.querySelector(".value-input");
    if (typed && typed.value.trim()) {
      return /^\d{1,4}$/.test(typed.value.trim()) ? Number(typed.value.trim()) : null;
    }
    var field = row.querySelector(".cards-text");
    if (!field) return null;
    var sum = 0;
    var cards = cardsOf(field);
    if (!cards.length) return null; // nothing typed yet
    for (var index = 0; index < cards.length; index++) {
      var rank = split(cards[index]).rank;
      var worth = rank === "JK" ? values.joker : rank === "A" ? values.ace
        : /^[JQK]$/.test(rank) ? values.face : RANKS[rank];
      if (worth === undefined) return null; // a card this phone cannot read: the server will
      sum += worth;
    }
    return sum;
  }
  document.addEventListener("htmx:sendError", function (event) {
    var previewer = event.detail && event.detail.elt;
    if (!previewer || !previewer.classList || !previewer.classList.contains("previewer")) return;
    var form = document.getElementById("round-form");
    if (!form) return;
    var values = {
      joker: Number(previewer.dataset.joker),
      ace: Number(previewer.dataset.ace),
      face: Number(previewer.dataset.face)
    };
    rowsOf(form).forEach(function (row) {
      var output = row.querySelector(".points-preview");
      if (!output) return;
      var value = wentOut(row) ? 0 : handValue(row, values);
      output.textContent = value === null ? "" : String(value);
    });
  });
  document.addEventListener("htmx:responseError", saveFailed("saveBusy"));

  document.addEventListener("htmx:afterRequest", function (event) {
    if (!waiting || !event.detail.successful) return;
    // The waiting form's own answer came (the round recorded, or a 409 saying why not).
    if (event.detail.elt === waiting.form) return stopRetrying();
    // Another request got an answer (a poll): the server can be reached again.
    if (waiting.unreachable) resend();
  });
  window.addEventListener("online", resend);
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") resend();
  });

  // A player who changes the round meanwhile is not overtaken by the old one: nothing is sent
  // by itself any more, and their next tap on Save sends what the form holds then.
  function changedWhileWaiting(event) {
    if (!waiting || !waiting.form.contains(event.target)) return;
    var form = waiting.form;
    stopRetrying();
    say(form, "saveChanged");
  }
  document.addEventListener("input", changedWhileWaiting);
  document.addEventListener("change", changedWhileWaiting);
  document.addEventListener("picked", changedWhileWaiting);

  // After a save, the answer is in view (the hx-swap of the round form, an Undo, the Undo of a
  // save: show:), and the focus goes to it: the saved round's banner, or the round back in the
  // form. The first error (every player's errors are shown at once) or the notice that another
  // phone saved the round first is brought into view here instead. Only for the requests that
  // change the game (the round form's save, an Undo, a delete), never for a preview or a live
  // update.
  var changing = null; // the request of a change, while its answer is on its way
  document.addEventListener("htmx:beforeRequest", function (event) {
    var elt = event.detail && event.detail.elt;
    if (elt && elt.matches && elt.matches("form, a.fix-link")) changing = event.detail.xhr;
  });
  document.addEventListener("htmx:afterSettle", function (event) {
    // Only when the change's own answer is in (not a live update that came in meanwhile).
    if (!changing || !event.detail || event.detail.xhr !== changing) return;
    changing = null;
    var invalid = document.querySelector("#round-form [aria-invalid=true], #round-form .form-errors .field-error");
    var notice = document.querySelector("#round-form .banner.conflict, #game-body .banner.conflict");
    var saved = document.querySelector("#game-body .banner.saved");
    var fixing = document.querySelector("#round-entry .fix-hint");
    if (notice) {
      notice.scrollIntoView({ block: "start" });
      notice.focus({ preventScroll: true });
    } else if (invalid) {
      var place = invalid.closest(".hand") || invalid;
      place.scrollIntoView({ block: "center" });
      // The field itself when it shows; else (the cards' text field, hidden where the keys
      // stand in for it) the player's row, so that no keyboard opens over the keys.
      var field = invalid.matches("input") && invalid.offsetParent ? invalid : place;
      if (field === place) place.setAttribute("tabindex", "-1");
      field.focus({ preventScroll: true });
    } else if (fixing) {
      // A round taken back (the Undo of a save): its form, from its title, to be put right.
      var title = document.getElementById("entry-title");
      title.setAttribute("tabindex", "-1");
      title.focus({ preventScroll: true });
    } else if (saved) {
      saved.focus({ preventScroll: true });
    }
  });

  // The last page's note (base.html: "New game: ..." after a rematch) goes once the game has
  // changed since the page was drawn (its first round saved, here or on another phone: a
  // later version of the game is shown), or on a tap on it.
  var notedAt = null; // the version of the game that the note came with
  document.addEventListener("htmx:afterSettle", function () {
    var poller = document.querySelector(".poller");
    if (notedAt === null || !poller || Number(poller.dataset.version || 0) <= notedAt) return;
    document.querySelectorAll(".banners.notices").forEach(function (notes) { notes.remove(); });
    notedAt = null;
  });
  document.addEventListener("click", function (event) {
    var note = event.target.closest && event.target.closest(".banners.notices .banner");
    if (!note) return;
    var notes = note.parentNode;
    note.remove();
    if (!notes.children.length) notes.remove();
  });

  document.addEventListener("DOMContentLoaded", function () {
    init(document);
    initSharing(document);
    var poller = document.querySelector(".poller");
    if (poller && document.querySelector(".banners.notices")) {
      notedAt = Number(poller.dataset.version || 0);
    }
  });
  // New content from htmx (a saved round brings a fresh form) gets its pickers too.
  document.addEventListener("htmx:load", function (event) { init(event.detail.elt); });
})();
