/** Plan renderers: Plan → string (human, JSON, Markdown). Data in, text out; no I/O. Other views: see the files beside. */
export { type Line, paint, type Tone } from './colors.js';
export { type HumanOptions, renderHuman } from './human.js';
export { type JsonOptions, PLAN_FORMAT_VERSION, planDocument, renderJson } from './json.js';
export { MARKDOWN_LIMIT, type MarkdownOptions, renderMarkdown } from './markdown.js';
export { type PlanView, projectPlan, type SiteView } from './projection.js';
