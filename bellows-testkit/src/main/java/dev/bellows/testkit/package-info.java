/** See the module description in pom.xml. */
package dev.bellows.testkit;
