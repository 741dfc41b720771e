/** Agent2Agent (A2A 1.0): serving Bellows agents as A2A tasks and calling remote A2A agents. */
package dev.bellows.a2a;
