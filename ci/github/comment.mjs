// Posts FILE as the pull request's sitesync comment: edits the comment that
// starts with the hidden marker and was written by the action's token (its own), or
// creates it. Usage: node comment.mjs FILE PR_NUMBER
import { readFileSync } from 'node:fs';
import { MARKER } from '../lib/plan-file.mjs';
import { github, ownComment } from './api.mjs';

const [file, number] = process.argv.slice(2);
const body = readFileSync(file, 'utf8');
const own = await ownComment(number, MARKER);
if (own) await github('PATCH', `/issues/comments/${own.id}`, { body });
else await github('POST', `/issues/${number}/comments`, { body });
console.log(`${own ? 'updated' : 'posted'} the sitesync plan comment of #${number}`);
