/** Evaluations of agents: run a dataset of cases through an agent, score each run, report and gate. */
package dev.bellows.eval;
