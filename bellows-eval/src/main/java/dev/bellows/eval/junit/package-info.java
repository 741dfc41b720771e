/** A dataset as JUnit 5 dynamic tests ({@link dev.bellows.eval.junit.EvalTests}); needs junit-jupiter-api on the class path. */
package dev.bellows.eval.junit;
