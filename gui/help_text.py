"""The Help window's text (F1), written from the window as it is: every page, button and key.

Markup the tests read: a button, check box, tab or menu entry is named in ``<b>`` exactly as it shows
(without its mnemonic "&"), a key in ``<code>``. A test checks that every ``<b>`` name exists in the window
and that every button of the window is named here, so the two cannot drift apart.
"""

HELP_HTML = """
<h2>Clarify</h2>
<p>Type a short question. Clarify asks you a few questions to understand it, then proposes the answer it
thinks fits best; when it is unsure between a few, it first lets you say which of two answers is better.
Everything you do is saved as you do it.</p>

<h3>The window</h3>
<p>The toolbar: the <b>Domain</b> you ask about (<i>faq</i>: software FAQs, <i>birds</i>: bird species,
<i>banking</i>: banking requests, <i>clinc</i>: requests to a voice assistant, and any domain made from your
own FAQ), <b>New question</b>, <b>Undo</b>, <b>Import examples and answers</b> and <b>Clarify help</b>. The
pages are tabs: <b>Ask</b>, <b>Compare</b>, <b>History</b>, <b>Lab</b> and <b>Summarize</b>.</p>

<p>While a domain gets ready (when the window opens, or the first time a domain is prepared, which can
take a few minutes), the Ask page shows its progress with <b>Cancel</b>. You can type your question meanwhile
and press <b>Ask</b>: it is kept and answered as soon as the domain is ready. After <b>Cancel</b> your question
stays in the field; press <b>Ask</b> again to get the domain ready and have it answered.</p>

<h3>Ask</h3>
<ol>
<li>Type what you are looking for in the <b>Question</b> field and press <b>Ask</b> (<code>Enter</code>).</li>
<li>Answer each question with its buttons. Each button shows its key: <code>1</code> to <code>9</code>, and
<code>0</code> for the tenth answer; with more than ten, <code>0</code> is the last one (<i>something else</i>)
and those between have no key. The keys work wherever
you clicked in the window, except while you type in a field.</li>
<li>Tick <b>Probably (I am not certain)</b> (<code>P</code>) before an answer you are unsure of: it counts
less. <b>Not sure</b> (<code>N</code>) skips the question; <b>Not visible</b> (<code>V</code>, birds) skips
every question about that part of the bird.</li>
<li>Say more at any time before the comparisons: type in the field under the answers and press
<b>Add words</b>.</li>
<li><b>Skip to the answers</b> stops the questions. When Clarify has its shortlist it says why it stopped;
<b>Go to comparisons</b> opens the Compare page, <b>Ask me more</b> asks more questions first.
<b>Undo</b> takes back the last step.</li>
</ol>
<p>On the right, <i>Most likely answers</i> shows the ten answers Clarify finds most likely now, and how
much your last answer moved each (in percentage points). <i>Why this question?</i> shows how much the question
is expected to tell Clarify, and what each of your answers would make most likely.</p>
<p>When nothing in the domain seems to fit your question, Clarify says so. Then you can say it differently
(in the field under the text), <b>Show the closest answers</b> anyway, or <b>Hand it on to a person</b>:
your question, and a note if you typed one, is saved in the domain's list of unanswered questions, which
the people who look after the domain's answers read.</p>

<h3>Compare</h3>
<p>Two answers side by side, each headed by the question it answers. Choose <b>Left is better</b>
(<code>L</code> or <big>&larr;</big>), <b>Right is better</b> (<code>R</code> or <big>&rarr;</big>),
<b>Equally good</b> (<code>E</code> or <code>=</code>) or <b>Neither is relevant</b> (<code>N</code>: both
are set aside; when every answer is set aside, Clarify asks a few more questions without them). These keys
too work wherever you clicked in the window. The bar shows how sure Clarify is that its current best
(&#9733;) is the right answer (one belief for every screen: the entry's chance times the answer's share among
its entry's answers); beside it, once you compared, the chance that it is the best of the compared answers.
The list below shows both for each answer. What you say holds: an
answer you preferred stays above the one it beat. <b>Done: show the best</b> (<code>D</code>) stops
comparing; <b>Ask me more</b> (<code>M</code>) goes back to the questions; <b>Undo</b> takes back the last
comparison.</p>
<p>Then Clarify asks whether its answer is yours: <b>Accept this answer</b> (<code>A</code>) ends the
conversation; <b>Reject</b> (<code>J</code>, or <code>Enter</code> in the field beside it once you typed why)
lets you <b>Use this answer</b> (<code>T</code> or <code>Enter</code>: another of the compared answers, picked
with the arrow keys), <b>Ask more questions</b> (<code>M</code>) without the rejected one, <b>Hand it on to a
person</b> (<code>P</code>) or <b>Give up</b> (<code>G</code>). <code>Tab</code> moves from control to control
and out of every list and table. When a FAQ has several
answers, <b>Summarize these answers</b> opens them on the Summarize page. After the end, <b>New question</b>
starts again. <b>Undo</b> takes back every step, also an accepted answer.</p>

<h3>History</h3>
<p>The domain's saved conversations, newest first. <b>Show</b> picks which ones (not finished, answered,
no answer, nothing fits). Select one and press <b>Resume</b> (or <code>Enter</code>, or double-click it) to
go on where it stopped; <b>Refresh</b> reads the list again.</p>

<h3>Summarize</h3>
<p>Pick the <b>Documents</b> (a bundled set of reviews or news articles, a folder of .txt files, pasted texts,
or a FAQ's answers from the Compare page), optionally the question the summary must answer, then
<b>Compare summaries</b> or <b>Sentence by sentence (top-5)</b>, and press <b>Summarize</b>.</p>
<ul>
<li>Comparing: two candidate summaries side by side; <b>Left is better</b> (<code>L</code> or
<big>&larr;</big>), <b>Right is better</b> (<code>R</code> or <big>&rarr;</big>), <b>Equally good</b>
(<code>E</code> or <code>=</code>), <b>Undo</b>. Below, the best summary so far and how sure Clarify is of it.
<b>Write me a better one</b> writes a new summary from what you preferred; <b>Use the best summary</b> or
<b>Use the written one</b> ends the session.</li>
<li>Sentence by sentence: Clarify offers its five best next sentences; <b>Add the selected sentence</b>, or
<b>Let Clarify choose</b>; <b>Undo</b> removes the last one.</li>
</ul>
<p>Every step is saved in the domain: pick a session under <b>Saved</b> and press <b>Resume</b> to go on.</p>

<h3>Lab (for researchers)</h3>
<p>Four tabs, each with its settings on the left, a progress bar with <b>Cancel</b>, and results on the
right. <b>Evaluate clarifier</b>: Clarify against simpler ways of asking, on simulated people
(<b>Run evaluation</b>). <b>Train models</b>: train the stop policy or the text model with live learning
curves (<b>Start training</b>). <b>Evaluate ranking</b>: how fast each way of learning from comparisons finds
the best answer (<b>Run ranking evaluation</b>). <b>Learn from use</b>: <b>Suggest queries to label</b> for a
crowd, and <b>Update from sessions</b>. Results can be saved with <b>Export CSV</b>, <b>Export PNG</b> and
<b>Export JSON</b>. Hover over a choice to read what it means.</p>

<h3>Menus and models</h3>
<p><b>File</b>: <b>New question</b>, <b>Import examples and answers</b> (files of people's answers to
Clarify's questions, example questions or answers, from MTurk, Label Studio or a plain file, checked and previewed before anything is written),
<b>Refresh domains</b>, <b>Questions of this domain…</b> (hide or reword a question Clarify asks),
<b>Update the models</b>, <b>New domain from my FAQ…</b> (a CSV, TSV, JSONL or Markdown FAQ, or a folder of
help articles: previewed with its problems by line, nothing written until it is valid, then prepared from its
texts alone), <b>Inbox…</b> (the questions Clarify could not answer: give each the right entry or make a new
one), <b>Settings</b> and <b>Quit</b>. <b>Edit</b>: <b>Undo</b>.
<b>View</b>: the five pages. <b>Help</b>: <b>Clarify help</b> and <b>About Clarify</b>. When a domain's data
is newer than its models (after an import, say), Clarify updates the models in the background, shown in the
status bar with <b>Cancel</b>; the current models keep answering until the new ones are ready.</p>

<h3>Settings</h3>
<p><b>Settings</b> (File menu): the question pace (quick: fewer questions; thorough: more questions while they
help), which answers Clarify may propose, how many it compares and for how long, and how it learns from
your comparisons.</p>

<h3>Keys everywhere</h3>
<table cellpadding="3">
<tr><td><code>Ctrl+N</code></td><td>new question</td></tr>
<tr><td><code>Ctrl+Z</code></td><td>undo the last step of the conversation (in every phase)</td></tr>
<tr><td><code>Ctrl+1</code> &hellip; <code>Ctrl+5</code></td><td>the Ask, Compare, History, Lab and Summarize
pages</td></tr>
<tr><td><code>Ctrl+I</code></td><td>import examples and answers</td></tr>
<tr><td><code>Ctrl+,</code></td><td>settings</td></tr>
<tr><td><code>F1</code></td><td>this help</td></tr>
<tr><td><code>Ctrl+Q</code></td><td>quit (<code>Ctrl+C</code> in the terminal that started Clarify does the
same)</td></tr>
</table>
<p>An underlined letter in a button's name is its key with <code>Alt</code>. Without a display, the terminal
does the same: <code>clarify ask faq "your question"</code>.</p>
"""
