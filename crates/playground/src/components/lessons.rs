//! Lessons: pick a lesson (which loads its scenario into the editor), read the question, commit
//! to a prediction, then see the engine's answer with its evidence and what it teaches.

use yew::prelude::*;

use crate::handles::{Dispatch, Shared};
use crate::lessons::{self, LESSONS, LessonStatus};
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
    /// A re-simulation is pending (the answer waits for it).
    pub busy: bool,
    /// Dispatch.
    pub dispatch: Dispatch,
}

/// The engine's evidence for the answer.
fn evidence_view(evidence: &lessons::Evidence) -> Html {
    html! {
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
    }
}

/// The Lessons panel.
#[function_component(LessonsPanel)]
pub fn lessons_panel(props: &LessonsProps) -> Html {
    let index = props.progress.lesson.min(LESSONS.len() - 1);
    let lesson = &LESSONS[index];
    let dispatch = props.dispatch.clone();
    let open = |i: usize| {
        let dispatch = dispatch.clone();
        Callback::from(move |_| dispatch.dispatch(Action::OpenLesson(i)))
    };
    let status = lessons::status(index, props.progress.loaded, &props.text);
    let answer = (lesson.answer)(&props.analysis.0);
    let predicted = props.progress.prediction;
    let locked = predicted.is_some() || status == LessonStatus::NotLoaded;
    html! {
        <div class="lessons" id="lessons">
            <ol class="lesson-list">
                { for LESSONS.iter().enumerate().map(|(i, l)| html! {
                    <li><button class={classes!("link", (i == index).then_some("active"))} data-lesson={i.to_string()}
                        aria-current={(i == index).then_some("step")} onclick={open(i)}>{ l.title }</button></li>
                }) }
            </ol>
            <h2>{ format!("Lesson {}: {}", index + 1, lesson.title) }</h2>
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
                        { evidence_view(&lessons::evidence(&props.analysis.0)) }
                        <p>{ lesson.lesson }</p>
                    }
                </div>
            }
            <nav class="lesson-nav" aria-label="Lessons">
                if index > 0 {
                    <button id="lesson-prev" onclick={open(index - 1)}>{ "← Previous lesson" }</button>
                }
                if index + 1 < LESSONS.len() {
                    <button id="lesson-next" onclick={open(index + 1)}>{ "Next lesson →" }</button>
                }
            </nav>
        </div>
    }
}
