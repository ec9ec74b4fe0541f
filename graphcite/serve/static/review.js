// graphcite review: small progressive enhancements. Every page works without this file.
// 1. A citation link opens its evidence, moves focus there and remembers the way back; Escape (or the
//    "Back to claim" link) returns focus to the citation link that opened it, keeping the claim in view.
// 2. The annotation form (shown to a signed-in reviewer) is posted in the background, with the same CSRF
//    token and session cookie, and the recorded judgement is shown in place; without JavaScript the
//    form is posted as usual and the server redirects back to the citation.
(function () {
  "use strict";
  var lastCite = null;
  document.documentElement.classList.add("js");

  function openEvidence(link) {
    var target = document.getElementById(link.getAttribute("href").slice(1));
    if (!target) { return false; }
    lastCite = link;
    target.scrollIntoView({block: "nearest"});
    target.focus({preventScroll: true});
    return true;
  }

  document.addEventListener("click", function (event) {
    var link = event.target.closest ? event.target.closest("a.cite") : null;
    if (link && openEvidence(link)) { event.preventDefault(); return; }
    var back = event.target.closest ? event.target.closest("a.back") : null;
    if (back && lastCite && document.body.contains(lastCite)) {
      event.preventDefault();
      lastCite.focus();
    }
  });

  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape" && lastCite && document.body.contains(lastCite)) {
      var inside = event.target.closest ? event.target.closest(".evidence > li") : null;
      if (inside) { lastCite.focus(); }
    }
  });

  function say(message) {
    var status = document.getElementById("status");
    if (status) { status.textContent = message; }
  }

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.classList || !form.classList.contains("annotate") || !window.fetch) { return; }
    event.preventDefault();
    var body = new URLSearchParams(new FormData(form));
    var button = form.querySelector("button");
    button.disabled = true;
    fetch(form.getAttribute("action"), {method: "POST", headers: {"Accept": "application/json"},
                                        body: body, credentials: "same-origin"})
      .then(function (response) { return response.json().then(function (json) { return [response.ok, json]; }); })
      .then(function (result) {
        button.disabled = false;
        if (!result[0]) {
          say("Not recorded: " + (result[1].error ? result[1].error.message : "unknown error"));
          return;
        }
        var row = result[1];
        var review = form.closest(".review");
        var list = review.querySelector(".judgements");
        var item = document.createElement("li");
        var label = document.createElement("strong");
        label.textContent = row.label;
        item.appendChild(document.createTextNode(row.reviewer + " says "));
        item.appendChild(label);
        item.appendChild(document.createTextNode((row.adjudication ? " (adjudication)" : "") + " on " +
                                                 row.created_at + ": " + row.rationale));
        list.appendChild(item);
        var labels = {};
        var adjudicated = row.adjudication;
        list.querySelectorAll("li").forEach(function (li) {
          var strong = li.querySelector("strong");
          if (li.textContent.indexOf("(adjudication)") >= 0) { adjudicated = true; }
          else if (strong) { labels[strong.textContent] = true; }
        });
        var names = Object.keys(labels);
        var state = review.querySelector(".review-state");
        state.textContent = adjudicated ? "Adjudicated." :
          (names.length > 1 ? "\u26a0 Contested: reviewers disagree (" + names.join(", ") + ")." :
           "Agreed: " + names.join(", ") + ".");
        form.querySelector("textarea").value = "";
        say("Recorded: " + row.reviewer + " says " + row.label + " (" + row.annotation_id + ").");
        state.setAttribute("tabindex", "-1");
        state.focus();
      })
      .catch(function () { button.disabled = false; form.submit(); });
  });
})();
