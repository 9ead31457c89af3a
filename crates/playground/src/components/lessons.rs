//! Lessons: the path (progress, each lesson ticked when done), the open lesson (its question, a
//! locked prediction, the engine's answer with its evidence, then one change to make, checked on
//! the engine's result), and the final quiz on generated scenarios with the engine's answers.

use spreadlab_engine::KubeVersion;
use yew::prelude::*;

use crate::components::explain::spread_chart;
use crate::handles::{Dispatch, Shared};
use crate::lessons::quiz::{self, QUESTIONS};
use crate::lessons::{self, LESSONS, LessonStatus};
use crate::model::Analysis;
use crate::state::{Action, LessonProgress};

/// Props of [`LessonsPanel`].
#[derive(Properties, PartialEq)]
pub struct LessonsProps {
    /// The analysis of the text in the editor.
    pub analysis: Shared,
    /// The editor's text (to tell the lesson's scenario from an edit of it).
    pub text: String,
    /// Progress.
    pub progress: LessonProgress,
    /// The release the quiz's scenarios are simulated with.
    pub version: KubeVersion,
    /// A re-simulation is pending (the answer waits for it).
    pub busy: bool,
    /// Dispatch.
    pub dispatch: Dispatch,
}

/// The engine's evidence for the answer, with the spread arithmetic of the pod it is about drawn
/// (each hard constraint's chart, as the Explain panel draws it).
fn evidence_view(analysis: &Analysis, evidence: &lessons::Evidence) -> Html {
    let decision = evidence.decision.and_then(|i| analysis.explained(i));
    let charts = decision.as_ref().map(|d| {
        d.explanation.as_ref().map(|e| {
            e.spread
                .iter()
                .enumerate()
                .map(|(i, s)| spread_chart(analysis, d, s, i, None))
                .collect::<Html>()
        })
    });
    html! {
        <>
        <ul class="evidence" id="lesson-evidence">
            <li>{ format!("Placed: {} of {} new pod(s).", evidence.placed, evidence.created) }</li>
            if let Some((pod, message)) = &evidence.pending {
                <li>{ format!("{pod} is Pending: ") }<q class="message">{ message.clone() }</q></li>
            }
            if let Some(pod) = &evidence.zones_for {
                <li>{ format!("Zones with a node that passes every filter for {pod}: {}",
                    if evidence.feasible_zones.is_empty() { "none".to_string() } else { evidence.feasible_zones.join(", ") }) }</li>
            }
        </ul>
        <div class="lesson-charts" id="lesson-charts">{ charts.flatten().unwrap_or_default() }</div>
        </>
    }
}

/// The path: progress and every entry (ticked when done), the quiz last.
fn path_view(progress: &LessonProgress, open: &impl Fn(usize) -> Callback<MouseEvent>) -> Html {
    let current = progress.lesson.min(LESSONS.len());
    let done = progress.done_count();
    html! {
        <nav class="path" aria-label="Lesson path">
            <p class="path-progress">
                <label for="path-progress">{ format!("{done} of {} lessons done", LESSONS.len()) }</label>
                <progress id="path-progress" max={LESSONS.len().to_string()} value={done.to_string()}></progress>
            </p>
            <ol class="lesson-list">
                { for LESSONS.iter().enumerate().map(|(i, l)| html! {
                    <li class={classes!(progress.is_done(i).then_some("done"))}>
                        <button class={classes!("link", (i == current).then_some("active"))} data-lesson={i.to_string()}
                            aria-current={(i == current).then_some("step")} onclick={open(i)}>
                            { l.title }
                        </button>
                        if progress.is_done(i) {
                            <span class="tick"><span aria-hidden="true">{ " ✓" }</span><span class="visually-hidden">{ " (done)" }</span></span>
                        }
                    </li>
                }) }
                <li>
                    <button class={classes!("link", progress.in_quiz().then_some("active"))} id="open-quiz"
                        aria-current={progress.in_quiz().then_some("step")} onclick={open(LESSONS.len())}>
                        { "Final quiz: fresh scenarios" }
                    </button>
                </li>
            </ol>
        </nav>
    }
}

/// The "now change one thing" step of lesson `index`.
fn try_view(index: usize, status: LessonStatus, tried: bool) -> Html {
    let step = &LESSONS[index].try_it;
    html! {
        <div class={classes!("try", tried.then_some("done"))} id="lesson-try" aria-live="polite">
            <h3>{ "Now change one thing" }</h3>
            <p>{ step.task }</p>
            <p id="lesson-try-status">
                { if tried { format!("✓ Done. {}", step.shows) }
                  else if status == LessonStatus::Edited { String::from("Not yet: the engine's result does not show the change.") }
                  else { String::from("Waiting for your change.") } }
            </p>
        </div>
    }
}

/// The final quiz: generated questions, each revealed with the engine's answer once answered.
fn quiz_view(
    progress: &LessonProgress,
    found: &[Option<quiz::Answer>],
    dispatch: &Dispatch,
) -> Html {
    let answers: Vec<Option<usize>> = found.iter().map(|a| a.as_ref().map(|a| a.choice)).collect();
    let right = (0..QUESTIONS)
        .filter(|q| progress.quiz_answers[*q].is_some() && progress.quiz_answers[*q] == answers[*q])
        .count();
    let answered = progress.quiz_answers.iter().all(Option::is_some);
    let finished = answered && progress.done_count() == LESSONS.len();
    let new_quiz = {
        let dispatch = dispatch.clone();
        Callback::from(move |_| dispatch.dispatch(Action::NewQuiz))
    };
    html! {
        <div class="quiz" id="quiz">
            <h2>{ "Final quiz" }</h2>
            <p class="muted">{ "Fresh scenarios, generated for you; the engine simulates each to find the answer." }</p>
            { for (0..QUESTIONS).map(|q| {
                let question = quiz::question(progress.quiz_seed, q);
                let given = progress.quiz_answers[q];
                let load = {
                    let dispatch = dispatch.clone();
                    let text = question.text.clone();
                    Callback::from(move |_| dispatch.dispatch(Action::ReplaceText(text.clone())))
                };
                html! {
                    <div class="quiz-question" id={format!("quiz-{q}")}>
                    <fieldset class="choices" disabled={given.is_some()}>
                        <legend>{ format!("Question {}", q + 1) }</legend>
                        <p class="question">{ question.prompt() }</p>
                        { for question.choices().into_iter().enumerate().map(|(i, choice)| {
                            let dispatch = dispatch.clone();
                            let id = format!("quiz-{q}-{i}");
                            html! {
                                <label for={id.clone()} class={classes!("choice",
                                    (given.is_some() && answers[q] == Some(i)).then_some("correct"),
                                    (given == Some(i) && answers[q] != Some(i)).then_some("wrong"))}>
                                    <input type="radio" name={format!("quiz-{q}")} id={id} checked={given == Some(i)}
                                        disabled={given.is_some()}
                                        onchange={Callback::from(move |_| dispatch.dispatch(Action::QuizAnswer(q, i)))} />
                                    { choice }
                                </label>
                            }
                        }) }
                    </fieldset>
                        if given.is_some() {
                            <p class="quiz-answer">
                                <strong>{ match answers[q] {
                                    Some(a) if Some(a) == given => String::from("Right."),
                                    Some(a) => format!("The engine says: {}.", question.choices()[a]),
                                    None => String::from("The engine could not load this scenario."),
                                } }</strong>
                                { " " }
                                { found[q].as_ref().map(quiz::Answer::explain).unwrap_or_default() }
                                { " " }
                                <button class="link" onclick={load}>{ "Open it in the editor" }</button>
                            </p>
                        }
                    </div>
                }
            }) }
            if answered {
                <p id="quiz-score">{ format!("{right} of {QUESTIONS} right.") }</p>
            }
            if finished {
                <p class="path-end" id="path-end">{ format!("You finished the path: {} lessons and the quiz.", LESSONS.len()) }</p>
            }
            <button id="new-quiz" onclick={new_quiz}>{ "New quiz" }</button>
        </div>
    }
}

/// The Lessons panel.
#[function_component(LessonsPanel)]
pub fn lessons_panel(props: &LessonsProps) -> Html {
    let dispatch = props.dispatch.clone();
    let open = |i: usize| {
        let dispatch = dispatch.clone();
        Callback::from(move |_: MouseEvent| dispatch.dispatch(Action::OpenLesson(i)))
    };
    let progress = &props.progress;
    let index = progress.lesson.min(LESSONS.len() - 1);
    let status = lessons::status(index, progress.loaded, &props.text);
    // The answer and the change check read the engine's result (some run a What-if analysis):
    // computed once per (lesson, analysis, status), not on every keystroke's render.
    let (answer, change_seen) = *use_memo(
        (index, props.analysis.clone(), status),
        |(index, analysis, status)| {
            (
                (LESSONS[*index].answer)(&analysis.0),
                lessons::tried(*index, *status, &analysis.0),
            )
        },
    );
    let tried = !progress.in_quiz() && progress.prediction.is_some() && !props.busy && change_seen;
    {
        // A lesson is done once predicted and its change made.
        let dispatch = dispatch.clone();
        let already = progress.is_done(index);
        use_effect_with((index, tried, already), move |(index, tried, already)| {
            if *tried && !*already {
                dispatch.dispatch(Action::LessonDone(*index));
            }
        });
    }
    // The quiz's scenarios are simulated only while the quiz is open.
    let quiz_answers = use_memo(
        (progress.in_quiz(), progress.quiz_seed, props.version),
        |(open, seed, version)| {
            if !*open {
                return Vec::new();
            }
            (0..QUESTIONS)
                .map(|q| quiz::question(*seed, q).answer(*version))
                .collect::<Vec<_>>()
        },
    );
    if progress.in_quiz() {
        return html! {
            <div class="lessons" id="lessons">
                { path_view(progress, &open) }
                { quiz_view(progress, &quiz_answers, &dispatch) }
            </div>
        };
    }
    let lesson = &LESSONS[index];
    let predicted = progress.prediction;
    let locked = predicted.is_some() || status == LessonStatus::NotLoaded;
    html! {
        <div class="lessons" id="lessons">
            { path_view(progress, &open) }
            <h2>{ format!("Lesson {} of {}: {}", index + 1, LESSONS.len(), lesson.title) }</h2>
            <p class={classes!("lesson-status", (status != LessonStatus::Loaded).then_some("warn"))} id="lesson-status">
                { match status {
                    LessonStatus::Loaded => "The editor holds this lesson's scenario.",
                    LessonStatus::Edited => "You edited the scenario: the engine's answer below is for your edited text, not the lesson's.",
                    LessonStatus::NotLoaded => "The editor holds another scenario. Load the lesson's scenario to predict.",
                } }
                if status != LessonStatus::Loaded {
                    { " " }
                    <button id="lesson-open" onclick={open(index)}>
                        { if status == LessonStatus::Edited { "Reset lesson" } else { "Load this lesson's scenario" } }
                    </button>
                }
            </p>
            <p class="question" id="lesson-question">{ lesson.question }</p>
            <fieldset class="choices" disabled={locked}>
                <legend>{ if predicted.is_some() { "Your prediction (locked)" } else { "Your prediction" } }</legend>
                { for lesson.choices.iter().enumerate().map(|(i, choice)| {
                    let dispatch = dispatch.clone();
                    let id = format!("choice-{i}");
                    html! {
                        <label for={id.clone()} class={classes!("choice",
                            (predicted.is_some() && answer == Some(i)).then_some("correct"),
                            (predicted == Some(i) && answer != Some(i)).then_some("wrong"))}>
                            <input type="radio" name="prediction" id={id} checked={predicted == Some(i)}
                                disabled={locked}
                                onchange={Callback::from(move |_| dispatch.dispatch(Action::Predict(i)))} />
                            { *choice }
                        </label>
                    }
                }) }
            </fieldset>
            if let Some(choice) = predicted {
                <div class="answer" id="lesson-answer" aria-live="polite">
                    if props.busy {
                        <p>{ "The engine is simulating…" }</p>
                    } else {
                        <p><strong>{ match answer {
                            Some(a) if a == choice => "Right. ".to_string(),
                            Some(a) => format!("The engine says: {} ", lesson.choices[a]),
                            None => "The scenario was changed; none of the choices matches the engine's result now. ".to_string(),
                        } }</strong>
                        if status == LessonStatus::Edited { { "(for your edited scenario) " } }</p>
                        { evidence_view(&props.analysis.0, &lessons::evidence(&props.analysis.0)) }
                        <p>{ lesson.lesson }</p>
                    }
                </div>
                { try_view(index, status, tried) }
            }
            <nav class="lesson-nav" aria-label="Previous and next lesson">
                if index > 0 {
                    <button id="lesson-prev" onclick={open(index - 1)}>{ "← Previous lesson" }</button>
                }
                <button id="lesson-next" onclick={open(index + 1)}>
                    { if index + 1 < LESSONS.len() { "Next lesson →" } else { "To the final quiz →" } }
                </button>
            </nav>
        </div>
    }
}
